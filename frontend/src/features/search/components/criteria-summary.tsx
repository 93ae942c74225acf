import type { Criteria as SavedPayload } from "@/gen/projects/v1/projects_pb";
import { useDropdownData } from "../api/search-api";
import { fromSaved } from "../lib/criteria";
import { summarize } from "../lib/summary";

/** A saved search's criteria in Thai, one line per criterion (labels from the dropdown lists). */
export function CriteriaSummary({ criteria }: { criteria: SavedPayload | undefined }) {
  const lists = useDropdownData();
  const lines = summarize(fromSaved(criteria), lists.data);
  if (lines.length === 0) return null;
  return (
    <dl className="criteria-summary" data-testid="criteria-summary">
      {lines.map((l) => (
        <div key={l.label}>
          <dt>{l.label}</dt>
          <dd>{l.value}</dd>
        </div>
      ))}
    </dl>
  );
}
