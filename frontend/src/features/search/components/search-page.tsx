import { PlaceholderPage } from "@/components/ui/placeholder-page";
import { th } from "@/i18n/th";

/** /search (open to visitors). The search screen arrives with the search issue. */
export function SearchPage() {
  return <PlaceholderPage title={th.titles.search} lead={th.pages.searchLead} />;
}
