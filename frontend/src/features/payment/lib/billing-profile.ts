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

/** An empty form: a person, head office. */
export const EMPTY_PROFILE: ProfileForm = { kind: "person", name: "", taxId: "", headOffice: true, branch: "", address: "" };

// What the server's free-text check (pkg/freetext) refuses: C0 and C1 controls, DEL, the line
// separators and the bidirectional overrides and isolates; an address may hold newlines and tabs.
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const REFUSED_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffd]/u;
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const REFUSED_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffd]/u;

/** Client-side checks mirroring the server's (it checks again). */
export function validateProfile(f: ProfileForm): ProfileErrors {
  const e: ProfileErrors = {};
  if (!f.name.trim() || f.name.trim().length > 200) e.name = b.errName;
  else if (REFUSED_LINE.test(f.name.trim())) e.name = b.errChars;
  const tax = taxIdError(f.taxId);
  if (tax) e.taxId = tax;
  if (f.kind === "company" && !f.headOffice && !/^\d{5}$/.test(thaiDigitsToAscii(f.branch.trim()))) e.branch = b.errBranch;
  if (!f.address.trim() || f.address.trim().length > 500) e.address = b.errAddress;
  else if (REFUSED_TEXT.test(f.address.replace(/\r\n/g, "\n"))) e.address = b.errChars;
  return e;
}

/** What the server takes (UpdateBillingProfile, a checkout's or a reissue's buyer). */
export type ProfileInput = { kind: "company" | "person"; name: string; taxId: string; headOffice: boolean; branch: string; address: string };

/** The form as the server takes it: trimmed, the tax id and branch in ASCII digits. */
export function toProfileInput(f: ProfileForm): ProfileInput {
  return {
    kind: f.kind,
    name: f.name.trim(),
    taxId: normalizeTaxId(f.taxId),
    headOffice: f.kind === "person" || f.headOffice,
    branch: f.kind === "company" && !f.headOffice ? thaiDigitsToAscii(f.branch.trim()) : "",
    address: f.address.trim(),
  };
}

/** A stored profile (GetBillingProfile) as the form shows it; EMPTY_PROFILE when none. */
export function profileForm(data: { exists: boolean; profile?: { kind: string; name: string; taxId: string; headOffice: boolean; branch: string; address: string } } | undefined): ProfileForm {
  const p = data?.profile;
  if (!data?.exists || !p) return EMPTY_PROFILE;
  return { kind: p.kind === "company" ? "company" : "person", name: p.name, taxId: p.taxId, headOffice: p.headOffice, branch: p.branch, address: p.address };
}
