/**
 * The listing filters (gen-infor's per-user filters:
 * docs/product.md#listing-filter-state, docs/product.md#listing-filters) and
 * their mutual exclusion. One pure reducer: the filter bar, the URL and the
 * tests share it.
 */
export type FollowState = "off" | "following" | "fill20";

export type ListingFilters = {
  bid: boolean; // is_InterestToBid
  archived: boolean; // is_archived
  like: boolean; // is_userLike
  comment: boolean; // is_comment
  follow: FollowState; // is_interestToStepChk (+ is_fill20)
  keyword: boolean; // whether the search keywords stay (archive on clears them)
};

export type FilterToggle = "bid" | "archive" | "like" | "comment" | "follow";

export const FILTER_TOGGLES: readonly FilterToggle[] = ["bid", "archive", "like", "comment", "follow"];

export const noFilters = (): ListingFilters => ({ bid: false, archived: false, like: false, comment: false, follow: "off", keyword: true });

const NEXT_FOLLOW: Record<FollowState, FollowState> = { off: "following", following: "fill20", fill20: "off" };

/**
 * docs/product.md#listing-filters:
 * - bid on clears following, archive and comment;
 * - archive on clears bid, like, following, comment and the keyword;
 * - like on clears comment and un-archives;
 * - comment on clears bid, archive, like and following;
 * - follow cycles off → following → following + fill20 → off; turning
 *   following on clears bid, archive and comment.
 * Turning a filter off changes nothing else.
 */
export function toggleFilter(s: ListingFilters, t: FilterToggle): ListingFilters {
  switch (t) {
    case "bid":
      return s.bid ? { ...s, bid: false } : { ...s, bid: true, follow: "off", archived: false, comment: false };
    case "archive":
      return s.archived
        ? { ...s, archived: false }
        : { ...s, archived: true, bid: false, like: false, follow: "off", comment: false, keyword: false };
    case "like":
      return s.like ? { ...s, like: false } : { ...s, like: true, comment: false, archived: false };
    case "comment":
      return s.comment ? { ...s, comment: false } : { ...s, comment: true, bid: false, archived: false, like: false, follow: "off" };
    case "follow": {
      const follow = NEXT_FOLLOW[s.follow];
      return follow === "following" ? { ...s, follow, bid: false, archived: false, comment: false } : { ...s, follow };
    }
  }
}

export function anyFilter(f: ListingFilters): boolean {
  return f.bid || f.archived || f.like || f.comment || f.follow !== "off";
}

/** The URL / gen-infor parameters of the filters (names as docs/product.md#projects-calls spells them). */
export function filtersToParams(f: ListingFilters, sp: URLSearchParams): void {
  if (f.bid) sp.set("is_InterestToBid", "true");
  if (f.archived) sp.set("is_archived", "true");
  if (f.like) sp.set("is_userLike", "true");
  if (f.comment) sp.set("is_comment", "true");
  if (f.follow !== "off") sp.set("is_interestToStepChk", "true");
  if (f.follow === "fill20") sp.set("is_fill20", "true");
}

export function filtersFromParams(sp: URLSearchParams): ListingFilters {
  const on = (k: string) => sp.get(k) === "true";
  return {
    bid: on("is_InterestToBid"),
    archived: on("is_archived"),
    like: on("is_userLike"),
    comment: on("is_comment"),
    follow: on("is_fill20") ? "fill20" : on("is_interestToStepChk") ? "following" : "off",
    keyword: true,
  };
}

/** The ListProjects request fields of the filters. */
export function filtersToRequest(f: ListingFilters) {
  return {
    isInterestToBid: f.bid,
    isArchived: f.archived,
    isUserLike: f.like,
    isComment: f.comment,
    isInterestToStepChk: f.follow !== "off",
    isFill20: f.follow === "fill20",
  };
}
