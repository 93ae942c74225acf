import type { ReactNode } from "react";
import { th } from "@/i18n/th";
import { IconArchive, IconBell, IconCoin, IconHeart } from "@/components/ui/icons";
import { useSetMarks, type Marks } from "../api/interests-api";
import { FILTER_TOGGLES, type FilterToggle, type ListingFilters } from "../lib/filters";
import "../interests.css";

const t = th.interests;

/** The next state of the follow mark: off → following → following + 20 days → off. */
export function nextFollow(m: Marks): Pick<Marks, "follow" | "fill20"> {
  if (!m.follow) return { follow: true, fill20: false };
  if (!m.fill20) return { follow: true, fill20: true };
  return { follow: false, fill20: false };
}

export function followLabel(m: Pick<Marks, "follow" | "fill20">): string {
  return !m.follow ? t.follow : m.fill20 ? t.followFill20 : t.following;
}

function followShort(m: Pick<Marks, "follow" | "fill20">): string {
  return !m.follow ? t.markShort.follow : m.fill20 ? t.markShort.fill20 : t.markShort.following;
}

/**
 * Like, follow (three states), bid and archive on one project; optimistic.
 * Each button shows its word: the full one on a wide screen's project page,
 * the short one in search rows (compact) and on phones (interests.css), so
 * a state such as "+ สรุป 20 วัน" is read on screen, not only by a screen
 * reader. The short word is part of the full label, which names the button.
 */
export function MarkBar({ projectId, marks, compact = false }: { projectId: string; marks: Marks; compact?: boolean }) {
  const set = useSetMarks(projectId);
  const btn = (key: string, on: boolean, label: string, short: string, icon: ReactNode, onClick: () => void, title = label) => (
    <button
      type="button"
      className={`mark${on ? " mark-on" : ""}`}
      aria-pressed={on}
      title={title}
      aria-label={title}
      onClick={onClick}
      data-testid={`mark-${key}`}
    >
      {icon}
      {!compact && (
        <span className="mark-label" aria-hidden="true">
          {label}
        </span>
      )}
      <span className="mark-short" aria-hidden="true">
        {short}
      </span>
    </button>
  );
  return (
    <div className={`marks${compact ? " marks-compact" : ""}`} role="group" aria-label={t.marksLabel} data-testid="marks">
      {btn("like", marks.like, t.like, t.markShort.like, <IconHeart size={16} fill={marks.like ? "currentColor" : "none"} />, () => set.mutate({ like: !marks.like }))}
      {btn(
        "follow",
        marks.follow,
        followLabel(marks),
        followShort(marks),
        <IconBell size={16} />,
        () => set.mutate(nextFollow(marks)),
        `${t.followHint}: ${followLabel(marks)}`,
      )}
      {btn("bid", marks.bid, t.bid, t.markShort.bid, <IconCoin size={16} />, () => set.mutate({ bid: !marks.bid }))}
      {btn(
        "archive",
        marks.archived,
        marks.archived ? t.archived : t.archive,
        marks.archived ? t.markShort.archived : t.markShort.archive,
        <IconArchive size={16} />,
        () => set.mutate({ archived: !marks.archived }),
      )}
    </div>
  );
}

const FILTER_LABEL: Record<FilterToggle, (f: ListingFilters) => string> = {
  bid: () => t.filterBid,
  archive: () => t.filterArchived,
  like: () => t.filterLike,
  comment: () => t.filterComment,
  follow: (f) => (f.follow === "fill20" ? t.followFill20 : f.follow === "following" ? t.following : t.filterFollow),
};

function isOn(f: ListingFilters, k: FilterToggle): boolean {
  switch (k) {
    case "bid":
      return f.bid;
    case "archive":
      return f.archived;
    case "like":
      return f.like;
    case "comment":
      return f.comment;
    case "follow":
      return f.follow !== "off";
  }
}

/** The listing-filter bar (docs/product.md#listing-filters; signed-in users). */
export function ListingFilterBar({ filters, onToggle }: { filters: ListingFilters; onToggle: (k: FilterToggle) => void }) {
  return (
    <div className="listing-filters" role="group" aria-label={t.filtersLabel} data-testid="listing-filters">
      <span className="listing-filters-title">{t.filtersTitle}</span>
      {FILTER_TOGGLES.map((k) => (
        <button
          key={k}
          type="button"
          className={`filter-chip${isOn(filters, k) ? " filter-chip-on" : ""}`}
          aria-pressed={isOn(filters, k)}
          onClick={() => onToggle(k)}
          data-testid={`filter-${k}`}
        >
          {FILTER_LABEL[k](filters)}
        </button>
      ))}
    </div>
  );
}
