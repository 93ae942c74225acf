import { thaiDigitsToAscii } from "@/lib/format";

/**
 * A Thai 13-digit tax id (เลขประจำตัวผู้เสียภาษี), as the market service
 * checks it: the last digit is (11 − Σ dᵢ·(13 − i) mod 11) mod 10 over the
 * first twelve. Ids damaged by spreadsheets (1.05559E+11) fail the shape.
 */
export function cleanTaxId(raw: string): string {
  return thaiDigitsToAscii(raw).replace(/[\s-]/g, "");
}

export type TaxIdCheck = { ok: true; id: string } | { ok: false; why: "empty" | "shape" | "check" };

export function checkTaxId(raw: string): TaxIdCheck {
  const id = cleanTaxId(raw);
  if (id === "") return { ok: false, why: "empty" };
  if (!/^\d{13}$/.test(id)) return { ok: false, why: "shape" };
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(id[i]) * (13 - i);
  const check = (11 - (sum % 11)) % 10;
  return check === Number(id[12]) ? { ok: true, id } : { ok: false, why: "check" };
}

export function isTaxId(raw: string): boolean {
  return checkTaxId(raw).ok;
}

/** 0105559012345 → 0-1055-59012-34-5, the way certificates print it. */
export function formatTaxId(id: string): string {
  return /^\d{13}$/.test(id) ? `${id[0]}-${id.slice(1, 5)}-${id.slice(5, 10)}-${id.slice(10, 12)}-${id[12]}` : id;
}
