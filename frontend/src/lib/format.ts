/** Buddhist-era dates and Thai baht, the way Thai bid managers read them. */
const dateFmt = new Intl.DateTimeFormat("th-TH-u-ca-buddhist", { day: "numeric", month: "short", year: "numeric" });
const longDateFmt = new Intl.DateTimeFormat("th-TH-u-ca-buddhist", { day: "numeric", month: "long", year: "numeric" });
const bahtFmt = new Intl.NumberFormat("th-TH", { style: "currency", currency: "THB", maximumFractionDigits: 0 });
const numberFmt = new Intl.NumberFormat("th-TH");

export function formatThaiDate(d: Date | string, long = false): string {
  const date = typeof d === "string" ? new Date(d) : d;
  return (long ? longDateFmt : dateFmt).format(date);
}

export function formatBaht(amount: number): string {
  return bahtFmt.format(amount);
}

export function formatNumber(n: number): string {
  return numberFmt.format(n);
}

/** mm:ss for the OTP countdown. */
export function formatCountdown(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

/* ---------- Thai procurement formatting (search and project details) ---------- */

/** Thai digits ๐–๙ (U+0E50–U+0E59) to ASCII 0–9. */
export function thaiDigitsToAscii(s: string): string {
  return s.replace(/[\u0E50-\u0E59]/g, (d) => String(d.charCodeAt(0) - 0x0e50));
}

const moneyFmt = new Intl.NumberFormat("th-TH", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Amounts as Thai government text writes them: `1,234,567.00 บาท` (EGP §5.2). */
export function formatMoney(amount: number | null | undefined): string {
  if (amount === null || amount === undefined || !Number.isFinite(amount)) return "–";
  return `${moneyFmt.format(amount)} บาท`;
}

/** Baht with thousands separators and no unit, for inputs: 1234567 → "1,234,567", 1500.5 → "1,500.5". */
export function formatAmountInput(amount: number | null | undefined): string {
  if (amount === null || amount === undefined || !Number.isFinite(amount)) return "";
  return new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }).format(amount);
}

/** A typed amount (commas, spaces, Thai digits, a trailing บาท) to a number; null when empty or invalid. */
export function parseAmount(text: string): number | null {
  const t = thaiDigitsToAscii(text).replace(/บาท|฿|,|\s/g, "");
  if (t === "") return null;
  if (!/^\d+(\.\d{0,2})?$/.test(t)) return null;
  return Number(t);
}

/** The saving of `agreed` against `base` in percent (positive = cheaper), or null. */
export function savingPercent(base: number | null | undefined, agreed: number | null | undefined): number | null {
  if (!base || base <= 0 || agreed === null || agreed === undefined || !Number.isFinite(agreed)) return null;
  return ((base - agreed) / base) * 100;
}

const pctFmt = new Intl.NumberFormat("th-TH", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
export function formatPercent(p: number): string {
  return `${pctFmt.format(p)}%`;
}

/** B.E. = C.E. + 543 (EGP §5.1). */
export const BE_OFFSET = 543;

/** Fiscal year (B.E.) of a date: 1 Oct – 30 Sep, named by the B.E. year in which it ends. */
export function fiscalYearBE(d: Date): number {
  return d.getFullYear() + BE_OFFSET + (d.getMonth() >= 9 ? 1 : 0);
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const beShort = new Intl.DateTimeFormat("th-TH-u-ca-buddhist", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const beLong = new Intl.DateTimeFormat("th-TH-u-ca-buddhist", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

function isoToUtc(iso: string): Date | null {
  const m = ISO_DATE.exec(iso.trim().slice(0, 10));
  if (!m) return null;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3] ? d : null;
}

/**
 * An ISO calendar date (YYYY-MM-DD, Gregorian, as the API sends it) in the
 * Buddhist era: "2026-11-21" → "21 พ.ย. 2569" (long: "21 พฤศจิกายน 2569").
 * Date-only values never shift a day with the viewer's time zone.
 */
export function formatIsoDateBE(iso: string | null | undefined, long = false): string {
  if (!iso) return "";
  const d = isoToUtc(iso);
  if (!d) return iso;
  return (long ? beLong : beShort).format(d);
}

export const THAI_MONTHS_SHORT = ["ม.ค.", "ก.พ.", "มี.ค.", "เม.ย.", "พ.ค.", "มิ.ย.", "ก.ค.", "ส.ค.", "ก.ย.", "ต.ค.", "พ.ย.", "ธ.ค."];
export const THAI_MONTHS_LONG = [
  "มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน",
  "กรกฎาคม", "สิงหาคม", "กันยายน", "ตุลาคม", "พฤศจิกายน", "ธันวาคม",
];

function monthIndex(token: string): number {
  const t = token.replace(/\s/g, "");
  if (/^\d{1,2}$/.test(t)) return Number(t) - 1;
  const bare = (s: string) => s.replace(/\./g, "");
  let i = THAI_MONTHS_SHORT.findIndex((m) => bare(m) === bare(t));
  if (i < 0) i = THAI_MONTHS_LONG.findIndex((m) => m === t);
  return i;
}

/**
 * A date typed the Thai way, to an ISO Gregorian date, or null.
 * Years are Buddhist era: 4 digits ("2569"), or 2 digits ("69" → 2569); a year
 * below 2400 is taken as C.E. Accepts "21/11/2569", "21-11-2569",
 * "21 พ.ย. 2569", "21 พฤศจิกายน 2569", "15-ก.ย.-64", Thai digits, and ISO
 * "2026-11-21" (Gregorian, as it stands).
 */
export function parseThaiDateInput(text: string): string | null {
  const t = thaiDigitsToAscii(text).trim().replace(/\s+/g, " ");
  if (!t) return null;
  if (ISO_DATE.test(t)) return isoToUtc(t) ? t : null;
  const dotted = /^\d{1,2}\.\d{1,2}\.\d{2,4}$/.test(t) ? t.replace(/\./g, "/") : t;
  const m = /^(\d{1,2})[\s/-]+([^\s/-]+?)[\s/-]+(\d{2}|\d{4})$/.exec(dotted);
  if (!m) return null;
  const day = Number(m[1]);
  const month = monthIndex(m[2]);
  let year = Number(m[3]);
  if (month < 0 || month > 11) return null;
  if (m[3].length === 2) year += 2500;
  const ce = year >= 2400 ? year - BE_OFFSET : year;
  const iso = `${String(ce).padStart(4, "0")}-${String(month + 1).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
  return isoToUtc(iso) ? iso : null;
}

/** Baht from the API's exact satang (int64) when present, else its display double; undefined when unset. */
export function bahtOf(satang: bigint | undefined, baht: number | undefined): number | undefined {
  if (satang !== undefined) return Number(satang) / 100;
  return baht;
}
