import { useState } from "react";
import { Link } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { formatIsoDateBE, formatMoney, formatNumber, formatThaiDate } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { StatusBadge } from "@/components/ui/status-badge";
import type { UserInterest } from "@/gen/interests/v1/interests_pb";
import { marksOf, tsToDate, useInterestList, type ListOrder } from "../api/interests-api";
import { Deadlines } from "@/components/ui/deadlines";
import { CLOSING_WEEK_DAYS } from "@/lib/deadline";
import { CalendarFeedSection } from "./calendar-feed";
import { followLabel, MarkBar } from "./marks";
import { download, toCsv, toIcs, toXlsx } from "../lib/export";
import { toast } from "@/stores/toast-store";
import "../interests.css";

const t = th.interests;

function Row({ i }: { i: UserInterest }) {
  const m = marksOf(i);
  const updated = tsToDate(i.updatedAt);
  return (
    <li className="my-row" data-testid="my-row" data-project-id={i.idProject}>
      <Link className="my-row-title" to={`/project-details/${i.idProject}`}>
        {i.projectName || i.idProject}
      </Link>
      <div className="my-row-meta">
        {i.deptName && <span>{i.deptName}</span>}
        {i.budget !== undefined && <span>{formatMoney(i.budget)}</span>}
        {i.status && <StatusBadge status={i.status} label={i.statusName} />}
        {i.announceTypeName && (
          <span>
            {i.announceTypeName}
            {i.announceDate && ` · ${formatIsoDateBE(i.announceDate)}`}
          </span>
        )}
      </div>
      <Deadlines submissionDue={i.submissionDue} hearingDue={i.hearingDue} />
      <div className="my-row-meta">
        {m.follow && <span>{followLabel(m)}</span>}
        {i.bidPrice !== undefined && <span>{t.bidShort(formatMoney(i.bidPrice), i.reductionPercent)}</span>}
        {i.commentCount > 0 && <span>{t.commentsTitle(i.commentCount)}</span>}
        {updated && <span>{t.changed(formatThaiDate(updated))}</span>}
      </div>
      <MarkBar projectId={i.idProject} marks={m} compact />
    </li>
  );
}

/** โครงการของฉัน: the user's active and archived records, with counts per mark. */
export function MyProjectsPage() {
  usePageTitle(t.myTitle);
  const [archived, setArchived] = useState(false);
  const [order, setOrder] = useState<ListOrder>({ sort: "", closingDays: 0 });
  const q = useInterestList(archived, order);
  const active = useInterestList(false);
  const stored = useInterestList(true);
  const c = q.data?.counts;
  const all = [...(active.data?.data ?? []), ...(stored.data?.data ?? [])];
  const stamp = new Date().toISOString().slice(0, 10);
  const exportAs = async (kind: "csv" | "xlsx" | "ics") => {
    try {
      if (kind === "csv") download(new Blob([await toCsv(all)], { type: "text/csv;charset=utf-8" }), `bidradar-projects-${stamp}.csv`);
      else if (kind === "xlsx") download(await toXlsx(all), `bidradar-projects-${stamp}.xlsx`);
      else download(new Blob([await toIcs(all, window.location.origin)], { type: "text/calendar;charset=utf-8" }), `bidradar-followed-${stamp}.ics`);
    } catch {
      toast.error(t.exportFailed);
    }
  };
  return (
    <div className="container my-projects" data-testid="my-projects">
      <header>
        <h1>{t.myTitle}</h1>
        <p className="muted">{t.myLead}</p>
      </header>
      <div className="my-tabs" role="tablist" aria-label={t.myTitle}>
        {[false, true].map((a) => (
          <button
            key={String(a)}
            type="button"
            role="tab"
            aria-selected={archived === a}
            className={`filter-chip${archived === a ? " filter-chip-on" : ""}`}
            onClick={() => setArchived(a)}
            data-testid={a ? "tab-archived" : "tab-active"}
          >
            {a ? t.tabArchived(formatNumber(Number(c?.archived ?? 0))) : t.tabActive(formatNumber(Number(c?.active ?? 0)))}
          </button>
        ))}
      </div>
      {all.length > 0 && (
        <div className="my-export" role="group" aria-label={t.exportLabel}>
          <Button size="sm" variant="secondary" onClick={() => void exportAs("csv")} data-testid="export-csv">
            {t.exportCsv}
          </Button>
          <Button size="sm" variant="secondary" onClick={() => void exportAs("xlsx")} data-testid="export-xlsx">
            {t.exportXlsx}
          </Button>
          <Button size="sm" variant="secondary" onClick={() => void exportAs("ics")} data-testid="export-ics">
            {t.exportIcs}
          </Button>
        </div>
      )}
      <div className="my-controls" role="group" aria-label={t.sortLabel}>
        <label className="control">
          <span>{t.sortLabel}</span>
          <select
            value={order.sort || "changed"}
            onChange={(e) => setOrder({ ...order, sort: e.target.value === "deadline" ? "deadline" : "" })}
            data-testid="my-sort"
          >
            {(["changed", "deadline"] as const).map((s) => (
              <option key={s} value={s}>
                {t.sorts[s]}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className={`filter-chip${order.closingDays ? " filter-chip-on" : ""}`}
          aria-pressed={!!order.closingDays}
          title={th.deadlines.closingWeekHint}
          onClick={() => setOrder({ ...order, closingDays: order.closingDays ? 0 : CLOSING_WEEK_DAYS })}
          data-testid="my-closing-week"
        >
          {th.deadlines.closingWeek}
        </button>
      </div>
      {c && (
        <div className="my-counts" data-testid="my-counts">
          <span>{t.like} {formatNumber(Number(c.liked))}</span>
          <span>{t.following} {formatNumber(Number(c.following))}</span>
          <span>{t.bid} {formatNumber(Number(c.bidding))}</span>
          <span>{t.filterComment} {formatNumber(Number(c.commented))}</span>
        </div>
      )}
      {q.isPending ? (
        <p className="muted">{th.common.loading}</p>
      ) : q.isError ? (
        <div className="state-card state-error" role="alert">
          <p>{errorMessage(q.error, "Failed to fetch data")}</p>
          <Button variant="secondary" onClick={() => void q.refetch()}>
            {th.search.retry}
          </Button>
        </div>
      ) : q.data.data.length === 0 ? (
        <div className="state-card" data-testid="my-empty">
          <p>{order.closingDays ? th.deadlines.closingWeekHint : archived ? t.emptyArchived : t.emptyActive}</p>
          <Link to="/search" className="btn btn-secondary btn-md">
            {th.nav.search}
          </Link>
        </div>
      ) : (
        <ul className="my-list">
          {q.data.data.map((i) => (
            <Row key={i.idProject} i={i} />
          ))}
        </ul>
      )}
      <CalendarFeedSection />
    </div>
  );
}
