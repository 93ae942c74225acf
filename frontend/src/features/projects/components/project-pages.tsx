import { PlaceholderPage } from "@/components/ui/placeholder-page";
import { th } from "@/i18n/th";

/** /project-details (login required). */
export function ProjectDetailsPage() {
  return <PlaceholderPage title={th.titles.projectDetails} lead={th.pages.projectDetailsLead} />;
}

/** /project-test: a test page (contents not shown in the specification). */
export function ProjectTestPage() {
  return <PlaceholderPage title={th.titles.projectTest} lead={th.pages.projectTestLead} />;
}
