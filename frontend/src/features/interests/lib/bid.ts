import { thaiDigitsToAscii } from "@/lib/format";

/**
 * Bid arithmetic, the same as the server's (interests domain): money in
 * satang, the reduction in hundredths of a percent, from the reference price
 * (ราคากลาง) else the budget.
 */
export function toSatang(baht: number): number {
  return Math.round(baht * 100);
}

/** The reduction (percent, two decimals) of a bid from base, or null. */
export function percentFromPrice(baseSatang: number | null, priceBaht: number): number | null {
  if (!baseSatang || baseSatang <= 0) return null;
  const bid = toSatang(priceBaht);
  if (bid > baseSatang) return null;
  const bp = Math.min(9999, Math.floor(((baseSatang - bid) * 10000 * 2 + baseSatang) / (2 * baseSatang)));
  return bp / 100;
}

/** The bid (baht, satang exact) a reduction from base gives, or null. */
export function priceFromPercent(baseSatang: number | null, percent: number): number | null {
  if (!baseSatang || baseSatang <= 0) return null;
  const bp = Math.round(percent * 100);
  const bid = Math.floor((baseSatang * (10000 - bp) * 2 + 10000) / 20000);
  return bid / 100;
}

export function validPrice(v: number | null): boolean {
  return v !== null && Number.isFinite(v) && v > 0 && Math.abs(v * 100 - Math.round(v * 100)) < 1e-6;
}

export function validPercent(v: number | null): boolean {
  return v !== null && Number.isFinite(v) && v >= 0 && v < 100 && Math.abs(v * 100 - Math.round(v * 100)) < 1e-6;
}

/** A typed percent ("5", "5,5", "๕%", " 12.5 % ") as a number; null when empty, NaN when not a number. */
export function parsePercent(text: string): number | null {
  const t = thaiDigitsToAscii(text).replace(/[%\s]/g, "").replace(",", ".");
  if (t === "") return null;
  return /^\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
}

/**
 * The price a typed percent stands for. When the percent is the one the
 * price the user typed gives, that price stays as typed: turning the
 * rounded percent back into a price would move it (1,234,567.89 from
 * 2,000,000 is 38.27 %, and 38.27 % of it is 1,234,600.00).
 */
export function priceForPercent(baseSatang: number | null, percent: number, typedPrice: number | null): { price: number | null; typed: boolean } {
  if (typedPrice !== null && percentFromPrice(baseSatang, typedPrice) === percent) return { price: typedPrice, typed: true };
  return { price: priceFromPercent(baseSatang, percent), typed: false };
}
