import { describe, expect, it } from "vitest";
import { th } from "@/i18n/th";
import { normalizeTaxId, taxIdError, validateProfile, type ProfileForm } from "./billing-profile";

describe("tax id", () => {
  it.each([
    ["0105559123454", null],
    ["0105551234567", null],
    ["3100101234566", null],
    ["1101700203671", null],
    ["0-1055-51234-56-7", null],
    ["๐๑๐๕๕๕๑๒๓๔๕๖๗", null],
    ["0105551234568", th.billing.errTaxIdCheck],
    ["1101700203670", th.billing.errTaxIdCheck],
    ["010555123456", th.billing.errTaxIdDigits],
    ["01055512345678", th.billing.errTaxIdDigits],
    ["01055512345a7", th.billing.errTaxIdDigits],
    ["", th.billing.errTaxIdDigits],
  ])("%s", (id, want) => {
    expect(taxIdError(id)).toBe(want);
  });

  it("normalizes what people type", () => {
    expect(normalizeTaxId(" 0 1055 51234 56 7 ")).toBe("0105551234567");
  });
});

describe("billing profile", () => {
  const ok: ProfileForm = { kind: "company", name: "บริษัท ตัวอย่าง จำกัด", taxId: "0105551234567", headOffice: false, branch: "00012", address: "กรุงเทพฯ" };

  it("accepts a branch, the head office and a person", () => {
    expect(validateProfile(ok)).toEqual({});
    expect(validateProfile({ ...ok, headOffice: true, branch: "" })).toEqual({});
    expect(validateProfile({ ...ok, kind: "person", branch: "" })).toEqual({});
  });

  it("says what is wrong, in Thai", () => {
    expect(validateProfile({ ...ok, name: " ", taxId: "0105551234568", branch: "12", address: "" })).toEqual({
      name: th.billing.errName,
      taxId: th.billing.errTaxIdCheck,
      branch: th.billing.errBranch,
      address: th.billing.errAddress,
    });
  });

  it("refuses control characters and bidirectional overrides, as the server does", () => {
    expect(validateProfile({ ...ok, name: "บริษัท \u202eดำกัจ" }).name).toBe(th.billing.errChars);
    expect(validateProfile({ ...ok, name: "ABC \u2066Co\u2069" }).name).toBe(th.billing.errChars);
    expect(validateProfile({ ...ok, name: "บริษัท\nจำกัด" }).name).toBe(th.billing.errChars);
    expect(validateProfile({ ...ok, address: "99 \u001b[2Jถนน" }).address).toBe(th.billing.errChars);
    expect(validateProfile({ ...ok, address: "99 \u0085ถนน" }).address).toBe(th.billing.errChars);
    expect(validateProfile({ ...ok, address: "99/1 ถนนสีลม\nกรุงเทพฯ\t10500" })).toEqual({});
  });
});
