/** Derived project statuses (planned … completed) as a coloured badge; shared by search results and project details. Styles in app/styles.css. */
const TONES: Record<string, string> = {
  planned: "slate",
  hearing: "violet",
  reference_price: "indigo",
  open: "green",
  amended: "amber",
  cancelled: "red",
  awarded: "blue",
  contracted: "teal",
  completed: "gray",
};

export function StatusBadge({ status, label }: { status: string; label: string }) {
  if (!label && !status) return null;
  return (
    <span className={`status-badge tone-${TONES[status] ?? "slate"}`} data-status={status} data-testid="status-badge">
      {label || status}
    </span>
  );
}
