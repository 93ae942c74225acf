import { describe, expect, it } from "vitest";
import { FILTER_TOGGLES, filtersFromParams, filtersToParams, noFilters, toggleFilter, type FollowState, type ListingFilters } from "./filters";

/** Every filter state: 2^4 booleans × 3 follow states × keyword kept or not. */
function allStates(): ListingFilters[] {
  const out: ListingFilters[] = [];
  for (let m = 0; m < 32; m++)
    for (const follow of ["off", "following", "fill20"] as FollowState[])
      out.push({ bid: !!(m & 1), archived: !!(m & 2), like: !!(m & 4), comment: !!(m & 8), keyword: !!(m & 16), follow });
  return out;
}

/** docs/product.md#listing-filters written as data: what turning a filter on clears (and un-archive for like). */
const clears: Record<string, (keyof ListingFilters)[]> = {
  bid: ["follow", "archived", "comment"],
  archive: ["bid", "like", "follow", "comment", "keyword"],
  like: ["comment", "archived"],
  comment: ["bid", "archived", "like", "follow"],
  follow: ["bid", "archived", "comment"],
};
const field = { bid: "bid", archive: "archived", like: "like", comment: "comment" } as const;
const cleared = (k: keyof ListingFilters) => (k === "follow" ? "off" : k === "keyword" ? false : false);

describe("listing filters: mutual exclusion (docs/product.md#listing-filters), every state × every toggle", () => {
  const states = allStates();
  it("covers 96 states × 5 toggles", () => expect(states.length * FILTER_TOGGLES.length).toBe(480));
  for (const s of states)
    for (const t of FILTER_TOGGLES) {
      it(`${JSON.stringify(s)} + ${t}`, () => {
        const next = toggleFilter(s, t);
        const expected: ListingFilters = { ...s };
        if (t === "follow") {
          expected.follow = s.follow === "off" ? "following" : s.follow === "following" ? "fill20" : "off";
          if (s.follow === "off") for (const k of clears.follow) (expected as Record<string, unknown>)[k] = cleared(k);
        } else {
          const f = field[t];
          if (s[f]) expected[f] = false;
          else {
            expected[f] = true;
            for (const k of clears[t]) (expected as Record<string, unknown>)[k] = cleared(k);
          }
        }
        expect(next).toEqual(expected);
      });
    }
});

describe("listing filters in the URL", () => {
  it("round-trips every state (keyword aside)", () => {
    for (const s of allStates()) {
      const sp = new URLSearchParams();
      filtersToParams(s, sp);
      expect(filtersFromParams(sp)).toEqual({ ...s, keyword: true });
    }
  });
  it("uses the spec's parameter names", () => {
    const sp = new URLSearchParams();
    filtersToParams({ ...noFilters(), follow: "fill20", like: true }, sp);
    expect(sp.toString()).toBe("is_userLike=true&is_interestToStepChk=true&is_fill20=true");
  });
});
