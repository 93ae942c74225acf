import { formatMoney, formatNumber } from "@/lib/format";
import type { Percentiles } from "./simulator";

/**
 * The market's answers in the shape the screens draw (numbers, not
 * int64 bigints), and their Thai formatting.
 */
export type Bin = { fromPct: number; toPct: number; count: number };
export type YearPoint = { year: number; n: number; p50?: number | null };
export type WinnerRow = { taxId?: string; name: string; wins: number; totalBaht: number; p50DiscountPct?: number };

export type BenchmarkView = {
  n: number;
  nWithoutReference: number;
  /** Unset when n is 0. */
  pct?: Percentiles & { mean: number };
  histogram: Bin[];
  byYear: YearPoint[];
  winners: WinnerRow[];
};

type StatsIn = { p10?: number; p25?: number; p50?: number; p75?: number; p90?: number; mean?: number };
/** Counts are int64 (bigint) or int32 (number) in the generated types: either reads. */
type Count = bigint | number;
type BenchmarkIn = {
  n: Count;
  nWithoutReference: Count;
  discountPct?: StatsIn;
  histogram: ReadonlyArray<{ fromPct: number; toPct: number; count: Count }>;
  byBudgetYear: ReadonlyArray<{ budgetYear: number; n: Count; p50?: number }>;
  topWinners: ReadonlyArray<{ taxId?: string; name: string; wins: Count; totalBaht: number; p50DiscountPct?: number }>;
};

function stats(s: StatsIn | undefined): BenchmarkView["pct"] {
  if (!s) return undefined;
  const { p10, p25, p50, p75, p90, mean } = s;
  if (p10 === undefined || p25 === undefined || p50 === undefined || p75 === undefined || p90 === undefined || mean === undefined) return undefined;
  return { p10, p25, p50, p75, p90, mean };
}

/** A Benchmark or a PriceGuide (the same figures) as the screens use them. */
export function benchmarkView(b: BenchmarkIn): BenchmarkView {
  const n = Number(b.n);
  return {
    n,
    nWithoutReference: Number(b.nWithoutReference),
    pct: n > 0 ? stats(b.discountPct) : undefined,
    histogram: b.histogram.map((h) => ({ fromPct: h.fromPct, toPct: h.toPct, count: Number(h.count) })),
    byYear: b.byBudgetYear.map((y) => ({ year: beYear(y.budgetYear), n: Number(y.n), p50: y.p50 ?? null })).sort((x, y) => x.year - y.year),
    winners: b.topWinners.map((w) => ({ taxId: w.taxId || undefined, name: w.name, wins: Number(w.wins), totalBaht: w.totalBaht, p50DiscountPct: w.p50DiscountPct })),
  };
}

/**
 * The bins worth drawing: empty bins before the first and after the last
 * count dropped (a phone's width goes to the discounts that happen).
 */
export function trimBins(bins: readonly Bin[]): Bin[] {
  const first = bins.findIndex((b) => b.count > 0);
  if (first < 0) return [];
  let last = bins.length - 1;
  while (last > first && bins[last].count === 0) last--;
  return bins.slice(first, last + 1);
}

/** A budget year in the Buddhist era (the API's years are B.E.; a C.E. year is moved). */
export function beYear(y: number): number {
  return y > 0 && y < 2400 ? y + 543 : y;
}

const pctFmt = new Intl.NumberFormat("th-TH", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const pctFmtShort = new Intl.NumberFormat("th-TH", { maximumFractionDigits: 2 });

/** 8.5 → "8.50%", -2 → "−2.00%" (a real minus sign: it does not wrap from its number). */
export function fmtPct(p: number | null | undefined, short = false): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return "–";
  const s = (short ? pctFmtShort : pctFmt).format(Math.abs(p));
  return `${p < 0 ? "−" : ""}${s}%`;
}

/** Baht, to the satang, with the unit (formatMoney), or "–". */
export function fmtBaht(b: number | null | undefined): string {
  return formatMoney(b);
}

/** Large baht sums the short Thai way: 12,345,678 → "12.35 ล้านบาท"; below a million, in full. */
export function fmtBahtShort(b: number | null | undefined): string {
  if (b === null || b === undefined || !Number.isFinite(b)) return "–";
  if (Math.abs(b) >= 1_000_000) return `${pctFmt.format(b / 1_000_000)} ล้านบาท`;
  return `${formatNumber(Math.round(b))} บาท`;
}
