import { describe, expect, it } from "vitest";
import { percentFromPrice, priceFromPercent, validPercent, validPrice } from "./bid";

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
  it("validates like the server", () => {
    expect(validPrice(0)).toBe(false);
    expect(validPrice(1.005)).toBe(false);
    expect(validPrice(1234.56)).toBe(true);
    expect(validPercent(100)).toBe(false);
    expect(validPercent(-0.01)).toBe(false);
    expect(validPercent(99.99)).toBe(true);
  });
});
