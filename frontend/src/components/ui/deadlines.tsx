import { th } from "@/i18n/th";
import { formatIsoDateBE } from "@/lib/format";
import { daysUntil, deadlineTone } from "@/lib/deadline";

const t = th.deadlines;

function Deadline({ kind, iso, now }: { kind: "submission" | "hearing"; iso: string; now?: Date }) {
  const days = daysUntil(iso, now);
  if (days === null) return null;
  const tone = deadlineTone(days);
  const left = days < 0 ? (kind === "submission" ? t.closed : t.ended) : days === 0 ? t.lastDay : t.daysLeft(days);
  return (
    <span className={`deadline deadline-${tone}`} data-testid={`deadline-${kind}`} data-days={days}>
      <span className="deadline-label">{kind === "submission" ? t.submission : t.hearing}</span>{" "}
      <span className="deadline-date">{formatIsoDateBE(iso)}</span> <strong className="deadline-left">{left}</strong>
    </span>
  );
}

/**
 * A project's deadlines, when the source gave them: the last day to submit
 * bids and the end of the price hearing, each with its days left in
 * Bangkok ("เหลือ 3 วัน", "วันสุดท้าย", or closed).
 */
export function Deadlines({ submissionDue, hearingDue, now }: { submissionDue?: string; hearingDue?: string; now?: Date }) {
  if (!submissionDue && !hearingDue) return null;
  return (
    <span className="deadlines" data-testid="deadlines">
      {hearingDue && <Deadline kind="hearing" iso={hearingDue} now={now} />}
      {submissionDue && <Deadline kind="submission" iso={submissionDue} now={now} />}
    </span>
  );
}
