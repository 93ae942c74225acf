import { thaiDigitsToAscii } from "@/lib/format";

/**
 * A typed amount in baht ("1,234,567.89", "๑๒๓", "1500 บาท") as exact satang,
 * without a float in between; null when empty or not an amount with at most
 * two decimals.
 */
export function parseSatang(text: string): bigint | null {
  const t = thaiDigitsToAscii(text).replace(/บาท|฿|,|\s/g, "");
  const m = /^(\d+)(?:\.(\d{0,2}))?$/.exec(t);
  if (!m) return null;
  return BigInt(m[1]) * 100n + BigInt((m[2] ?? "").padEnd(2, "0"));
}

/** Satang as baht with thousands separators and two decimals: 123456789n → "1,234,567.89". */
export function formatSatang(satang: bigint): string {
  const neg = satang < 0n;
  const abs = neg ? -satang : satang;
  const baht = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const st = (abs % 100n).toString().padStart(2, "0");
  return `${neg ? "-" : ""}${baht}.${st}`;
}

/** Satang as Thai money text: "1,234,567.89 บาท". */
export function formatSatangBaht(satang: bigint): string {
  return `${formatSatang(satang)} บาท`;
}
