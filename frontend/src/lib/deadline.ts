/**
 * Days left to a project's deadline (the last day to submit bids, the end
 * of the price hearing), counted in Asia/Bangkok whatever the viewer's time
 * zone: the deadline is a Thai calendar date, and its last day still counts.
 */
const bangkokDay = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Bangkok", year: "numeric", month: "2-digit", day: "2-digit" });

/** Today's date in Bangkok, ISO (YYYY-MM-DD). */
export function bangkokToday(now: Date = new Date()): string {
  return bangkokDay.format(now);
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whole days from today (Bangkok) to an ISO date: 0 is today, negative is past; null when not a date. */
export function daysUntil(iso: string | undefined, now: Date = new Date()): number | null {
  const d = ISO.exec(iso ?? "");
  const t = ISO.exec(bangkokToday(now));
  if (!d || !t) return null;
  return Math.round((Date.UTC(+d[1], +d[2] - 1, +d[3]) - Date.UTC(+t[1], +t[2] - 1, +t[3])) / 86_400_000);
}

/** closed: passed; last: today is the last day; urgent: 1–3 days; soon: 4–7; later. */
export type DeadlineTone = "closed" | "last" | "urgent" | "soon" | "later";

export function deadlineTone(days: number): DeadlineTone {
  if (days < 0) return "closed";
  if (days === 0) return "last";
  if (days <= 3) return "urgent";
  if (days <= 7) return "soon";
  return "later";
}

/** The "closing this week" filter: today and the next six days. */
export const CLOSING_WEEK_DAYS = 7;
