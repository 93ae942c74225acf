import { th } from "@/i18n/th";
import { thaiDigitsToAscii } from "@/lib/format";

const b = th.billing;

/** A tax id as typed (spaces, dashes, Thai digits) → its 13 ASCII digits or the raw rest. */
export function normalizeTaxId(s: string): string {
  return thaiDigitsToAscii(s).replace(/[\s-]/g, "");
}

/** The 13th digit from the first 12: (11 − Σ dᵢ × (13 − i) mod 11) mod 10 — as the server checks it. */
export function taxIdCheckDigit(first12: string): number {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(first12[i]) * (13 - i);
  return (11 - (sum % 11)) % 10;
}

/** Thai error for a tax id, or null when valid. */
export function taxIdError(raw: string): string | null {
  const id = normalizeTaxId(raw);
  if (!/^\d{13}$/.test(id)) return b.errTaxIdDigits;
  return taxIdCheckDigit(id) === Number(id[12]) ? null : b.errTaxIdCheck;
}

export type ProfileForm = { kind: "company" | "person"; name: string; taxId: string; headOffice: boolean; branch: string; address: string };
export type ProfileErrors = Partial<Record<"name" | "taxId" | "branch" | "address", string>>;

/** Client-side checks mirroring the server's (it checks again). */
export function validateProfile(f: ProfileForm): ProfileErrors {
  const e: ProfileErrors = {};
  if (!f.name.trim() || f.name.trim().length > 200) e.name = b.errName;
  const tax = taxIdError(f.taxId);
  if (tax) e.taxId = tax;
  if (f.kind === "company" && !f.headOffice && !/^\d{5}$/.test(thaiDigitsToAscii(f.branch.trim()))) e.branch = b.errBranch;
  if (!f.address.trim() || f.address.trim().length > 500) e.address = b.errAddress;
  return e;
}
