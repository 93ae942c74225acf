import { describe, expect, it } from "vitest";
import { bandOf, bidFor, bidsAtPercentiles, discountOf, positionOn, round2, spreadScale } from "./simulator";
import { checkTaxId, formatTaxId, isTaxId } from "./tax-id";

describe("discountOf: (reference − bid) ÷ reference × 100, 2 decimals", () => {
  it.each([
    // reference, bid, discount (hand-computed)
    [1_000_000, 900_000, 10],
    [4_812_500, 4_390_000, 8.78], // 422,500 / 4,812,500 = 8.779220…
    [2_000_000, 1_234_567.89, 38.27], // 765,432.11 / 2,000,000 = 38.2716…
    [100, 100, 0],
    [1_000_000, 1_050_000, -5], // above the reference: negative
    [3, 2, 33.33],
    [3, 1, 66.67],
    [8, 7.9996, 0.01], // 0.005 rounds away from zero
  ])("reference %d, bid %d → %d %%", (ref, bid, want) => {
    expect(discountOf(ref, bid)).toBe(want);
  });

  it("needs both prices > 0", () => {
    expect(discountOf(0, 100)).toBeNull();
    expect(discountOf(null, 100)).toBeNull();
    expect(discountOf(100, 0)).toBeNull();
    expect(discountOf(100, null)).toBeNull();
    expect(discountOf(100, Number.NaN)).toBeNull();
  });

  it("round2 rounds halves away from zero on both sides", () => {
    expect(round2(1.005)).toBe(1.01);
    expect(round2(-1.005)).toBe(-1.01);
    expect(round2(-0.004)).toBe(-0);
  });
});

describe("bidFor: the bid a discount stands for, to the satang", () => {
  it.each([
    [1_000_000, 10, 900_000],
    [4_812_500, 8.78, 4_389_962.5],
    [1_000_000, -5, 1_050_000],
    [999.99, 33.33, 666.69], // 99,999 satang × 0.6667 = 66,669.33 → 66,669
  ])("reference %d at %d %% → %d", (ref, pct, want) => {
    expect(bidFor(ref, pct)).toBe(want);
  });

  it("round trip: the bid of a typed discount gives that discount back", () => {
    for (const pct of [0, 0.01, 5.5, 12.34, 37.5, -2.25]) expect(discountOf(4_812_500, bidFor(4_812_500, pct))).toBe(pct);
  });

  it("nothing at or beyond 100 % or without a reference", () => {
    expect(bidFor(1000, 100)).toBeNull();
    expect(bidFor(1000, 120)).toBeNull();
    expect(bidFor(0, 10)).toBeNull();
    expect(bidFor(1000, null)).toBeNull();
  });
});

describe("bands and the spread bar", () => {
  const p = { p10: 2, p25: 5, p50: 8.5, p75: 12, p90: 18.25 };
  it.each([
    [1.99, "below-p10"],
    [2, "p10-p25"],
    [5, "p25-p50"],
    [8.49, "p25-p50"],
    [8.5, "p50-p75"],
    [15, "p75-p90"],
    [18.25, "above-p90"],
    [-3, "below-p10"],
  ] as const)("%d %% is %s", (d, band) => {
    expect(bandOf(p, d)).toBe(band);
  });

  it("bids at the percentiles for the project's reference price", () => {
    expect(bidsAtPercentiles(1_000_000, p).map((r) => r.bid)).toEqual([980_000, 950_000, 915_000, 880_000, 817_500]);
    expect(bidsAtPercentiles(null, p).every((r) => r.bid === null)).toBe(true);
  });

  it("the scale holds p10..p90 and the bid, with a margin", () => {
    const s = spreadScale(p, 25);
    expect(s.lo).toBeLessThan(2);
    expect(s.hi).toBeGreaterThan(25);
    expect(positionOn(s.lo, s.hi, 25)).toBeLessThan(100);
    expect(positionOn(0, 10, 5)).toBe(50);
    expect(positionOn(0, 10, -4)).toBe(0);
    expect(positionOn(0, 10, 40)).toBe(100);
    expect(positionOn(3, 3, 3)).toBe(50);
  });
});

describe("tax ids: 13 digits, the last (11 − Σ dᵢ·(13 − i) mod 11) mod 10", () => {
  it.each([
    ["0105559012345", false], // shape ok, check digit wrong
    ["0994000165510", true], // a government agency's published id
    ["0105536092641", true],
    ["3100600445848", true], // 201 mod 11 = 3 → 8
    ["3100600445849", false],
  ])("%s → %s", (id, ok) => {
    expect(isTaxId(id)).toBe(ok);
  });

  it("hand-computed: 010555901234x", () => {
    // 0·13+1·12+0·11+5·10+5·9+5·8+9·7+0·6+1·5+2·4+3·3+4·2 = 240; 240 mod 11 = 9; (11 − 9) mod 10 = 2
    expect(checkTaxId("0105559012342")).toEqual({ ok: true, id: "0105559012342" });
  });

  it("folds Thai digits, spaces and dashes; refuses spreadsheet damage", () => {
    expect(checkTaxId("0-1055-59012-34-2")).toEqual({ ok: true, id: "0105559012342" });
    expect(checkTaxId("๐๑๐๕๕๕๙๐๑๒๓๔๒")).toEqual({ ok: true, id: "0105559012342" });
    expect(checkTaxId("1.05559E+11")).toEqual({ ok: false, why: "shape" });
    expect(checkTaxId("010555901234")).toEqual({ ok: false, why: "shape" });
    expect(checkTaxId("  ")).toEqual({ ok: false, why: "empty" });
    expect(checkTaxId("0105559012345")).toEqual({ ok: false, why: "check" });
  });

  it("prints the way certificates do", () => {
    expect(formatTaxId("0105559012342")).toBe("0-1055-59012-34-2");
    expect(formatTaxId("abc")).toBe("abc");
  });
});
