import { th } from "@/i18n/th";
import { formatNumber } from "@/lib/format";
import type { SearchType } from "./criteria";

/** The plan's limits that saving a search counts against (-1 = unlimited). */
export type PlanLimits = { searchCombination: number; overnightSearchSave: number };

export type OvernightRoom = { used: number; limit: number; full: boolean };

/** The user's overnight searches against the plan's overnight_search_save. */
export function overnightRoom(limits: PlanLimits | undefined, types: readonly string[] | undefined): OvernightRoom | null {
  if (!limits || !types) return null;
  const used = types.filter((t) => t === "overnight").length;
  const limit = limits.overnightSearchSave;
  return { used, limit, full: limit >= 0 && used >= limit };
}

/** "ค้นหาข้ามคืน 1/1 ชุด"; unlimited plans say ไม่จำกัด. */
export function overnightUsage(r: OvernightRoom): string {
  return r.limit < 0 ? th.savedSearch.overnightUsageUnlimited(formatNumber(r.used)) : th.savedSearch.overnightUsage(formatNumber(r.used), formatNumber(r.limit));
}

/**
 * Why a choice of the save dialog is closed, per search type, or nothing
 * when open. Saving counts against the plan (search_combination for a
 * normal search, overnight_search_save for an overnight one); an edit
 * consumes an overnight unit only when it switches to overnight, and no
 * search combination at all. Unknown limits (still loading, failed) close
 * nothing: the server still refuses with its own detail.
 */
export function lockedChoices(
  limits: PlanLimits | undefined,
  room: OvernightRoom | null,
  editing: { searchType: string } | null,
): Partial<Record<SearchType, string>> {
  const out: Partial<Record<SearchType, string>> = {};
  if (!limits) return out;
  if (!editing && limits.searchCombination === 0) out.normal = th.savedSearch.normalNone;
  const alreadyOvernight = editing?.searchType === "overnight";
  if (!alreadyOvernight) {
    if (limits.overnightSearchSave === 0) out.overnight = th.savedSearch.overnightNone;
    else if (room?.full) out.overnight = th.savedSearch.overnightFull(formatNumber(room.limit));
  }
  return out;
}
