import { describe, expect, it } from "vitest";
import { fiscalYearBE, formatIsoDateBE, formatMoney, formatPercent, parseAmount, parseThaiDateInput, savingPercent } from "@/lib/format";
import { groupDigits } from "@/components/ui/money-input";

describe("Buddhist-era dates", () => {
  it("shows ISO dates in B.E.", () => {
    expect(formatIsoDateBE("2026-11-21")).toBe("21 พ.ย. 2569");
    expect(formatIsoDateBE("2024-01-01")).toBe("1 ม.ค. 2567");
    expect(formatIsoDateBE("2026-11-21", true)).toBe("21 พฤศจิกายน 2569");
    expect(formatIsoDateBE("")).toBe("");
  });

  it("reads what Thai users type back to ISO Gregorian", () => {
    expect(parseThaiDateInput("21 พ.ย. 2569")).toBe("2026-11-21");
    expect(parseThaiDateInput("21/11/2569")).toBe("2026-11-21");
    expect(parseThaiDateInput("21-11-2569")).toBe("2026-11-21");
    expect(parseThaiDateInput("21.11.2569")).toBe("2026-11-21");
    expect(parseThaiDateInput("๒๑/๑๑/๒๕๖๙")).toBe("2026-11-21");
    expect(parseThaiDateInput("21 พฤศจิกายน 2569")).toBe("2026-11-21");
    expect(parseThaiDateInput("15-ก.ย.-64")).toBe("2021-09-15");
    expect(parseThaiDateInput("21 มิ.ย. 67")).toBe("2024-06-21");
    expect(parseThaiDateInput("2026-11-21")).toBe("2026-11-21");
    expect(parseThaiDateInput("29/2/2567")).toBe("2024-02-29");
  });

  it("refuses impossible dates and noise", () => {
    expect(parseThaiDateInput("31/02/2569")).toBeNull();
    expect(parseThaiDateInput("21 xyz 2569")).toBeNull();
    expect(parseThaiDateInput("hello")).toBeNull();
    expect(parseThaiDateInput("")).toBeNull();
  });

  it("round-trips: ISO → B.E. text → ISO", () => {
    for (const iso of ["2026-11-21", "2025-01-31", "2024-02-29", "2026-10-01"]) expect(parseThaiDateInput(formatIsoDateBE(iso))).toBe(iso);
  });

  it("names the fiscal year by the B.E. year in which it ends", () => {
    expect(fiscalYearBE(new Date(2024, 8, 30))).toBe(2567);
    expect(fiscalYearBE(new Date(2024, 9, 1))).toBe(2568);
  });
});

describe("money", () => {
  it("formats baht as Thai government text does", () => {
    expect(formatMoney(1234567)).toBe("1,234,567.00 บาท");
    expect(formatMoney(136200)).toBe("136,200.00 บาท");
    expect(formatMoney(0.5)).toBe("0.50 บาท");
    expect(formatMoney(28759000000)).toBe("28,759,000,000.00 บาท");
    expect(formatMoney(undefined)).toBe("–");
  });

  it("groups digits while typing and parses typed amounts", () => {
    expect(groupDigits("1234567")).toBe("1,234,567");
    expect(groupDigits("๑๒๓๔๕")).toBe("12,345");
    expect(groupDigits("1,000.505")).toBe("1,000.50");
    expect(parseAmount("1,234,567")).toBe(1234567);
    expect(parseAmount("500,000 บาท")).toBe(500000);
    expect(parseAmount("")).toBeNull();
    expect(parseAmount("12a")).toBeNull();
  });

  it("computes the saving against the reference price", () => {
    expect(savingPercent(4_812_500, 4_390_000)).toBeCloseTo(8.779, 2);
    expect(formatPercent(savingPercent(1000, 900)!)).toBe("10.00%");
    expect(savingPercent(undefined, 900)).toBeNull();
    expect(savingPercent(1000, undefined)).toBeNull();
  });
});
