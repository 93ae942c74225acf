import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { CombinationLimitsSchema, TierSchema } from "@/gen/subscription/v1/subscription_pb";
import { th } from "@/i18n/th";
import { limitRows, tierLines } from "./pricing-section";

const tier = (normalSearchSave: number, overnightSearchSave: number, features: string[]) =>
  create(TierSchema, { tier: "t", features, combinationLimits: create(CombinationLimitsSchema, { normalSearchSave, overnightSearchSave }) });

describe("a pricing card's lines come from the tier table", () => {
  it("words the numbers and feature keys, nothing else", () => {
    expect(tierLines(tier(1, 0, []))).toEqual([
      ["normal_search_save", th.home.savedSearches("1")],
      ["bell", th.home.bellAlerts],
    ]);
    expect(tierLines(tier(30, 30, ["email_alerts", "line_alerts", "ocds_export"])).map(([k]) => k)).toEqual([
      "normal_search_save",
      "overnight_search_save",
      "bell",
      "email_alerts",
      "line_alerts",
      "ocds_export",
    ]);
    expect(tierLines(tier(-1, -1, ["a_key_this_app_does_not_word_yet"]))).toEqual([
      ["normal_search_save", th.home.savedSearchesUnlimited],
      ["overnight_search_save", th.home.overnightUnlimited],
      ["bell", th.home.bellAlerts],
    ]);
    expect(tierLines(tier(200, 200, []))[1][1]).toBe("ค้นหาข้ามคืนอัตโนมัติ 200 ชุด");
  });
  it("words the market features, the watchlist and the team's seats", () => {
    const pro = create(TierSchema, {
      tier: "pro",
      features: ["market_benchmarks", "market_profiles"],
      combinationLimits: create(CombinationLimitsSchema, { normalSearchSave: 30, watchlistSize: 20, teamSeats: 3 }),
    });
    expect(tierLines(pro).slice(-4)).toEqual([
      ["market_benchmarks", th.home.tierFeatures.market_benchmarks],
      ["market_profiles", th.home.tierFeatures.market_profiles],
      ["watchlist_size", "เฝ้าดูคู่แข่ง 20 ราย"],
      ["team_seats", "ทีมประมูล 3 ที่นั่ง"],
    ]);
  });
});

describe("a pricing card's counted limits are the ones the server enforces", () => {
  it("lists search combinations and live look-ups, not the (unlimited) database filter", () => {
    const starter = create(CombinationLimitsSchema, {
      searchCombination: 10,
      searchCombinationMonth: 200,
      databaseFilterSearch: -1,
      exploreLiveSearch: 10,
    });
    expect(limitRows(starter)).toEqual([
      [th.home.limits.search_combination, "10 ครั้ง/วัน · 200 ครั้ง/เดือน"],
      [th.home.limits.explore_live_search, "10 ครั้ง/วัน"],
    ]);
    const free = create(CombinationLimitsSchema, { searchCombination: 3, searchCombinationMonth: 30, databaseFilterSearch: -1 });
    expect(limitRows(free)[1]).toEqual([th.home.limits.explore_live_search, "–"]);
    expect(limitRows(free).map(([k]) => k)).not.toContain(th.home.limits.database_filter_search);
  });
});
