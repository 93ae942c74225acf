import { describe, expect, it } from "vitest";
import { th } from "@/i18n/th";
import { lockedChoices, normalRoom, normalUsage, overnightRoom, overnightUsage } from "./limits";

const s = th.savedSearch;
// Numbers of a plan with one search of each kind (the tests' own).
const free = { searchCombination: 3, overnightSearchSave: 1, normalSearchSave: 1 };

describe("plan limits of a saved search", () => {
  it("counts the overnight searches against overnight_search_save (-1 unlimited)", () => {
    expect(overnightRoom(free, ["normal", "overnight"])).toEqual({ used: 1, limit: 1, full: true });
    expect(overnightRoom(free, ["normal"])).toEqual({ used: 0, limit: 1, full: false });
    expect(overnightRoom({ ...free, overnightSearchSave: -1 }, ["overnight", "overnight"])).toEqual({ used: 2, limit: -1, full: false });
    expect(overnightRoom({ ...free, overnightSearchSave: 0 }, [])?.full).toBe(true);
    expect(overnightRoom(undefined, [])).toBeNull();
    expect(overnightRoom(free, undefined)).toBeNull();
    expect(overnightUsage({ used: 1, limit: 1, full: true })).toBe("ค้นหาข้ามคืน 1/1 ชุด");
    expect(overnightUsage({ used: 3, limit: -1, full: false })).toBe("ค้นหาข้ามคืน 3 ชุด (ไม่จำกัด)");
  });

  it("counts the normal searches against normal_search_save", () => {
    expect(normalRoom(free, ["normal", "overnight"])).toEqual({ used: 1, limit: 1, full: true });
    expect(normalRoom({ ...free, normalSearchSave: 5 }, ["normal", "", "overnight"])).toEqual({ used: 2, limit: 5, full: false });
    expect(normalRoom(free, undefined)).toBeNull();
    expect(normalUsage({ used: 1, limit: 1, full: true })).toBe("ค้นหาแบบปกติ 1/1 ชุด");
  });

  it("closes only the choices the plan has no room for", () => {
    const full = overnightRoom(free, ["overnight"]);
    const cases: [string, Parameters<typeof lockedChoices>, ReturnType<typeof lockedChoices>][] = [
      ["unknown plan: nothing closed", [undefined, null, null], {}],
      ["room left", [free, overnightRoom(free, []), null], {}],
      ["overnight full", [free, full, null], { overnight: s.overnightFull("1") }],
      ["no overnight in the plan", [{ ...free, overnightSearchSave: 0 }, overnightRoom({ ...free, overnightSearchSave: 0 }, []), null], { overnight: s.overnightNone }],
      ["no normal saves in the plan", [{ ...free, searchCombination: 0 }, overnightRoom(free, []), null], { normal: s.normalNone }],
      ["editing an overnight search: it may stay overnight", [free, full, { searchType: "overnight" }], {}],
      ["editing a normal one at the limit", [free, full, { searchType: "normal" }], { overnight: s.overnightFull("1") }],
      ["an edit consumes no search combination", [{ ...free, searchCombination: 0 }, full, { searchType: "overnight" }], {}],
      ["normal full", [free, overnightRoom(free, ["normal"]), null, normalRoom(free, ["normal"])], { normal: s.normalFull("1") }],
      ["no normal searches in the plan", [{ ...free, normalSearchSave: 0 }, overnightRoom(free, []), null, normalRoom({ ...free, normalSearchSave: 0 }, [])], { normal: s.normalNone }],
      ["editing a normal one when normal is full: it may stay normal", [free, full, { searchType: "normal" }, normalRoom(free, ["normal"])], { overnight: s.overnightFull("1") }],
      ["editing an overnight one into a full normal kind", [free, full, { searchType: "overnight" }, normalRoom(free, ["normal", "overnight"])], { normal: s.normalFull("1") }],
    ];
    for (const [name, args, want] of cases) expect(lockedChoices(...args), name).toEqual(want);
  });
});
