import { describe, expect, it } from "vitest";
import { parsePercent, percentFromPrice, priceForPercent, priceFromPercent, validPercent, validPrice } from "./bid";

describe("bid arithmetic (as the server computes it)", () => {
  const base = 100_000_000; // 1,000,000 baht in satang
  it("computes the percent from a price", () => {
    expect(percentFromPrice(base, 950_000)).toBe(5);
    expect(percentFromPrice(300, 2)).toBe(33.33);
    expect(percentFromPrice(base, 1_000_000.01)).toBeNull();
    expect(percentFromPrice(null, 5)).toBeNull();
  });
  it("computes the price from a percent, exact to the satang", () => {
    expect(priceFromPercent(base, 12.34)).toBe(876_600);
    expect(priceFromPercent(481_250_000, 8.77)).toBe(4_390_443.75);
    expect(priceFromPercent(null, 5)).toBeNull();
  });
  it("a percent typed back to the typed price's own keeps that price; another percent gives its price", () => {
    const twoMillion = 200_000_000;
    expect(percentFromPrice(twoMillion, 1_234_567.89)).toBe(38.27);
    expect(priceFromPercent(twoMillion, 38.27)).toBe(1_234_600);
    expect(priceForPercent(twoMillion, 38.27, 1_234_567.89)).toEqual({ price: 1_234_567.89, typed: true });
    expect(priceForPercent(twoMillion, 38.2, 1_234_567.89)).toEqual({ price: 1_236_000, typed: false });
    expect(priceForPercent(twoMillion, 5, null)).toEqual({ price: 1_900_000, typed: false });
    expect(priceForPercent(null, 5, 1_000)).toEqual({ price: null, typed: false });
  });
  it("reads a typed percent: Thai digits, a decimal comma, a % sign", () => {
    expect(parsePercent("")).toBeNull();
    expect(parsePercent(" 12.5 % ")).toBe(12.5);
    expect(parsePercent("๕")).toBe(5);
    expect(parsePercent("5,5")).toBe(5.5);
    expect(parsePercent("-5")).toBeNaN();
    expect(parsePercent("ห้า")).toBeNaN();
  });
  it("validates like the server", () => {
    expect(validPrice(0)).toBe(false);
    expect(validPrice(1.005)).toBe(false);
    expect(validPrice(1234.56)).toBe(true);
    expect(validPercent(100)).toBe(false);
    expect(validPercent(-0.01)).toBe(false);
    expect(validPercent(99.99)).toBe(true);
    expect(validPercent(150)).toBe(false);
    expect(validPercent(NaN)).toBe(false);
  });
});
