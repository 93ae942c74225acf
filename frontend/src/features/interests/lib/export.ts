/**
 * Export of the user's tracked projects (issue 9): CSV and Excel with Thai
 * headers and Buddhist-era dates, and a calendar (.ics) of the followed
 * projects' announcement steps. The file formats are written by kept
 * libraries (papaparse, write-excel-file, ics), loaded only when exporting.
 */
import type { UserInterest } from "@/gen/interests/v1/interests_pb";
import { formatIsoDateBE, formatThaiDate } from "@/lib/format";
import { tsToDate } from "../api/interests-api";

export { download } from "@/lib/download";

export const EXPORT_HEADERS = [
  "รหัสโครงการ",
  "ชื่อโครงการ",
  "หน่วยงาน",
  "งบประมาณ (บาท)",
  "สถานะ",
  "ประกาศล่าสุด",
  "วันที่ประกาศ (พ.ศ.)",
  "ถูกใจ",
  "ติดตาม",
  "สนใจยื่นเสนอ",
  "อยู่ในคลัง",
  "ราคาเสนอ (บาท)",
  "ต่ำกว่าราคากลาง (%)",
  "แก้ไขราคาเสนอล่าสุด (พ.ศ.)",
  "จำนวนความคิดเห็น",
] as const;

const yes = (b: boolean) => (b ? "ใช่" : "");

/** One row per record, in EXPORT_HEADERS order (numbers stay numbers). */
export function exportRows(records: readonly UserInterest[]): (string | number | null)[][] {
  return records.map((r) => {
    const bidAt = tsToDate(r.lastUpdated);
    return [
      r.idProject,
      r.projectName,
      r.deptName,
      r.budget ?? null,
      r.statusName || r.status,
      r.announceTypeName,
      r.announceDate ? formatIsoDateBE(r.announceDate) : "",
      yes(r.isUserLike),
      r.isInterestToStepChk ? (r.isFill20 ? "ติดตาม + สรุป 20 วัน" : "ติดตาม") : "",
      yes(r.isInterestToBid),
      yes(r.archived),
      r.bidPrice ?? null,
      r.reductionPercent ?? null,
      bidAt ? formatThaiDate(bidAt, true) : "",
      r.commentCount,
    ];
  });
}

/**
 * A text cell a spreadsheet would run as a formula (a project or agency name
 * from the feed may start with anything) gets a leading ' from papaparse.
 * Its own pattern for `escapeFormulae: true` ends in `.*$`, which misses a
 * cell with a line break.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** CSV (UTF-8 with a BOM, so that Excel reads the Thai). */
export async function toCsv(records: readonly UserInterest[]): Promise<string> {
  const Papa = (await import("papaparse")).default;
  return "\uFEFF" + Papa.unparse({ fields: [...EXPORT_HEADERS], data: exportRows(records) }, { escapeFormulae: FORMULA_START });
}

export async function toXlsx(records: readonly UserInterest[]): Promise<Blob> {
  const { default: writeXlsxFile } = await import("write-excel-file/browser");
  const header = EXPORT_HEADERS.map((h) => ({ value: h, fontWeight: "bold" as const }));
  const rows = exportRows(records).map((r) =>
    r.map((v) => (v === null || v === "" ? null : typeof v === "number" ? { value: v, type: Number } : { value: String(v), type: String })),
  );
  return writeXlsxFile([header, ...rows], { sheet: "โครงการของฉัน" }).toBlob();
}

/** A calendar of the followed projects' latest announcement steps (all-day events). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The calendar of the followed and bidding projects (as the calendar link
 * has them): each one's latest announcement step, and its deadlines when the
 * source gave them (the last day to submit bids, the end of the price
 * hearing), one all-day event each. The UIDs are the link's: a deadline is
 * one event per project however often it moves.
 */
export async function toIcs(records: readonly UserInterest[], origin: string): Promise<string> {
  const { createEvents } = await import("ics");
  const events = records
    .filter((r) => !r.archived && (r.isInterestToStepChk || r.isInterestToBid))
    .flatMap((r) => {
      const name = r.projectName || r.idProject;
      const dates: Array<[string, string, string, string]> = [
        [r.announceDate, "step", `${r.announceTypeName || "ประกาศ"}: ${name}`, `step-${r.announceDate}`],
        [r.submissionDue, "submission", `วันสุดท้ายยื่นข้อเสนอ: ${name}`, "submission"],
        [r.hearingDue, "hearing", `วันสุดท้ายรับฟังคำวิจารณ์: ${name}`, "hearing"],
      ];
      return dates
        .filter(([date]) => ISO_DATE.test(date))
        .map(([date, , title, key]) => {
          const [y, m, d] = date.split("-").map(Number);
          return {
            uid: `${r.idProject}-${key}@bidradar`,
            start: [y, m, d] as [number, number, number],
            duration: { days: 1 },
            title,
            description: `${r.deptName}\nรหัสโครงการ ${r.idProject}`,
            url: `${origin}/project-details/${r.idProject}`,
            calName: "BidRadar: โครงการที่ติดตาม",
          };
        });
    });
  const { error, value } = createEvents(events);
  if (error || !value) throw error ?? new Error("ics");
  return value;
}
