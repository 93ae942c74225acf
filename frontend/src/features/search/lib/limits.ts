import { th } from "@/i18n/th";
import { formatNumber } from "@/lib/format";
import type { SearchType } from "./criteria";

/**
 * The plan's limits that saving a search counts against (-1 = unlimited):
 * search combinations a day, and the searches of each kind held at once.
 */
export type PlanLimits = { searchCombination: number; overnightSearchSave: number; normalSearchSave: number };

export type OvernightRoom = { used: number; limit: number; full: boolean };

function room(types: readonly string[], kind: string, limit: number): OvernightRoom {
  const used = types.filter((t) => (kind === "overnight" ? t === "overnight" : t !== "overnight")).length;
  return { used, limit, full: limit >= 0 && used >= limit };
}

/** The user's overnight searches against the plan's overnight_search_save. */
export function overnightRoom(limits: PlanLimits | undefined, types: readonly string[] | undefined): OvernightRoom | null {
  if (!limits || !types) return null;
  return room(types, "overnight", limits.overnightSearchSave);
}

/** The user's normal searches against the plan's normal_search_save. */
export function normalRoom(limits: PlanLimits | undefined, types: readonly string[] | undefined): OvernightRoom | null {
  if (!limits || !types) return null;
  return room(types, "normal", limits.normalSearchSave);
}

/** "ค้นหาแบบปกติ 1/1 ชุด"; unlimited plans say ไม่จำกัด. */
export function normalUsage(r: OvernightRoom): string {
  return r.limit < 0 ? th.savedSearch.normalUsageUnlimited(formatNumber(r.used)) : th.savedSearch.normalUsage(formatNumber(r.used), formatNumber(r.limit));
}

/** "ค้นหาข้ามคืน 1/1 ชุด"; unlimited plans say ไม่จำกัด. */
export function overnightUsage(r: OvernightRoom): string {
  return r.limit < 0 ? th.savedSearch.overnightUsageUnlimited(formatNumber(r.used)) : th.savedSearch.overnightUsage(formatNumber(r.used), formatNumber(r.limit));
}

/**
 * Why a choice of the save dialog is closed, per search type, or nothing
 * when open. A new search needs room for its kind (normal_search_save,
 * overnight_search_save) and a normal one a search combination of the
 * day; an edit needs room only when it switches kind, and no search
 * combination at all. Unknown limits (still loading, failed) close
 * nothing: the server still refuses with its own detail.
 */
export function lockedChoices(
  limits: PlanLimits | undefined,
  room: OvernightRoom | null,
  editing: { searchType: string } | null,
  normal: OvernightRoom | null = null,
): Partial<Record<SearchType, string>> {
  const out: Partial<Record<SearchType, string>> = {};
  if (!limits) return out;
  const alreadyNormal = !!editing && editing.searchType !== "overnight";
  if (!editing && limits.searchCombination === 0) out.normal = th.savedSearch.normalNone;
  else if (!alreadyNormal && limits.normalSearchSave === 0) out.normal = th.savedSearch.normalNone;
  else if (!alreadyNormal && normal?.full) out.normal = th.savedSearch.normalFull(formatNumber(normal.limit));
  const alreadyOvernight = editing?.searchType === "overnight";
  if (!alreadyOvernight) {
    if (limits.overnightSearchSave === 0) out.overnight = th.savedSearch.overnightNone;
    else if (room?.full) out.overnight = th.savedSearch.overnightFull(formatNumber(room.limit));
  }
  return out;
}
