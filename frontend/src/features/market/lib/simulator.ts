/**
 * The bid simulator's arithmetic (docs/market.md's definitions): a bid's
 * discount from the reference price (ราคากลาง) in percent,
 * (reference − bid) ÷ reference × 100, negative above the reference; the bid
 * a discount stands for; and where a discount falls among the group's
 * percentiles. The percentile rank itself is the server's (the price guide
 * with bid_price): these only convert what the user types and label the band.
 */

/** Round half away from zero to 2 decimals, as PostgreSQL rounds numeric. */
export function round2(x: number): number {
  const s = Math.sign(x);
  return (s * Math.round(Math.abs(x) * 100 + 1e-9)) / 100;
}

/** The discount (percent, 2 decimals) of a bid from the reference price; null without both. */
export function discountOf(reference: number | null | undefined, bid: number | null | undefined): number | null {
  if (!reference || reference <= 0 || bid === null || bid === undefined || !Number.isFinite(bid) || bid <= 0) return null;
  return round2(((reference - bid) / reference) * 100);
}

/** The bid (baht, to the satang) a discount stands for; null without a reference or when it would be ≤ 0. */
export function bidFor(reference: number | null | undefined, discountPct: number | null | undefined): number | null {
  if (!reference || reference <= 0 || discountPct === null || discountPct === undefined || !Number.isFinite(discountPct)) return null;
  const satang = Math.round(reference * 100 * (1 - discountPct / 100));
  return satang > 0 ? satang / 100 : null;
}

export type Percentiles = { p10: number; p25: number; p50: number; p75: number; p90: number; mean?: number };

export const PERCENTILE_KEYS = ["p10", "p25", "p50", "p75", "p90"] as const;
export type PercentileKey = (typeof PERCENTILE_KEYS)[number];

/**
 * The band of the group's spread a discount falls in: "below-p10",
 * "p10-p25", …, "p75-p90", "above-p90". A discount equal to a percentile
 * belongs to the band above it.
 */
export type Band = "below-p10" | "p10-p25" | "p25-p50" | "p50-p75" | "p75-p90" | "above-p90";

export function bandOf(p: Percentiles, discountPct: number): Band {
  if (discountPct < p.p10) return "below-p10";
  if (discountPct < p.p25) return "p10-p25";
  if (discountPct < p.p50) return "p25-p50";
  if (discountPct < p.p75) return "p50-p75";
  if (discountPct < p.p90) return "p75-p90";
  return "above-p90";
}

/** The bid at each percentile's discount for this project's reference price. */
export function bidsAtPercentiles(reference: number | null | undefined, p: Percentiles): Array<{ key: PercentileKey; discountPct: number; bid: number | null }> {
  return PERCENTILE_KEYS.map((key) => ({ key, discountPct: p[key], bid: bidFor(reference, p[key]) }));
}

/**
 * Where x sits on a scale from lo to hi, in percent of its width, clamped to
 * [0, 100] (the spread bar's marks).
 */
export function positionOn(lo: number, hi: number, x: number): number {
  if (!(hi > lo)) return 50;
  return Math.min(100, Math.max(0, ((x - lo) / (hi - lo)) * 100));
}

/** The scale of the spread bar: p10..p90 widened to hold the bid, with a margin. */
export function spreadScale(p: Percentiles, bidDiscount?: number | null): { lo: number; hi: number } {
  let lo = p.p10;
  let hi = p.p90;
  if (bidDiscount !== null && bidDiscount !== undefined && Number.isFinite(bidDiscount)) {
    lo = Math.min(lo, bidDiscount);
    hi = Math.max(hi, bidDiscount);
  }
  const pad = Math.max((hi - lo) * 0.08, 0.5);
  return { lo: lo - pad, hi: hi + pad };
}

/** A typed discount ("7.5", "-2", "๕,๕", " 12 % ") as a number; null when empty, NaN when not a number. */
export function parseDiscount(text: string): number | null {
  const t = text
    .replace(/[\u0E50-\u0E59]/g, (d) => String(d.charCodeAt(0) - 0x0e50))
    .replace(/[%\s]/g, "")
    .replace(",", ".")
    .replace(/^[−–]/, "-");
  if (t === "") return null;
  return /^[-+]?\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
}
