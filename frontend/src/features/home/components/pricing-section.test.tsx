import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { CombinationLimitsSchema, TierSchema } from "@/gen/subscription/v1/subscription_pb";
import { th } from "@/i18n/th";
import { tierLines } from "./pricing-section";

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
});
