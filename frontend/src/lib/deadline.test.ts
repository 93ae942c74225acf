import { describe, expect, it } from "vitest";
import { bangkokToday, daysUntil, deadlineTone } from "./deadline";

describe("deadlines in Bangkok", () => {
  it("counts from the Bangkok date, not the viewer's", () => {
    // 18:30 UTC on 27 Nov is 01:30 on 28 Nov in Bangkok
    const now = new Date("2026-11-27T18:30:00Z");
    expect(bangkokToday(now)).toBe("2026-11-28");
    expect(daysUntil("2026-11-28", now)).toBe(0);
    expect(daysUntil("2026-11-30", now)).toBe(2);
    expect(daysUntil("2026-11-27", now)).toBe(-1);
    expect(daysUntil("2027-01-01", now)).toBe(34);
    expect(daysUntil("", now)).toBeNull();
    expect(daysUntil("30/11/2569", now)).toBeNull();
  });
  it("names the urgency", () => {
    expect([-1, 0, 1, 3, 4, 7, 8].map(deadlineTone)).toEqual(["closed", "last", "urgent", "urgent", "soon", "soon", "later"]);
  });
});
