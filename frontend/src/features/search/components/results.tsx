import { Link } from "react-router";
import type { ProjectSummary } from "@/gen/projects/v1/projects_pb";
import { th } from "@/i18n/th";
import { bahtOf, formatIsoDateBE, formatMoney, formatNumber, formatPercent } from "@/lib/format";
import { IconArrowRight } from "@/components/ui/icons";
import type { View } from "../lib/criteria";
import { Highlight } from "./highlight";
import { StatusBadge } from "@/components/ui/status-badge";
import { Deadlines } from "@/components/ui/deadlines";
import { MarkBar } from "@/features/interests";
import { AddToPipelineButton } from "@/features/teams";

type RowProps = { p: ProjectSummary; view: View; fallbackKeywords: string[]; loggedIn: boolean };

function Meta({ label, children }: { label: string; children: React.ReactNode }) {
  if (children === "" || children === null || children === undefined) return null;
  return (
    <div className="meta">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The signed-in user's bid on the row (exact to the satang), when they set one. */
function MyBid({ p }: { p: ProjectSummary }) {
  const price = bahtOf(p.bidPriceSatang, p.bidPrice);
  if (price === undefined && p.reductionPercent === undefined) return null;
  return (
    <p className="result-bid" data-testid="result-bid">
      {/* Two pieces that wrap whole on a phone. */}
      <span>{price !== undefined ? th.search.myBidPrice(formatMoney(price)) : th.search.myBid}</span>{" "}
      {p.reductionPercent !== undefined && <span>{th.search.myBidReduction(formatPercent(p.reductionPercent))}</span>}
    </p>
  );
}

/** One result: the title (matches highlighted) links to /project-details/{id} (login required). */
export function ResultRow({ p, view, fallbackKeywords, loggedIn }: RowProps) {
  const keywords = p.matchedKeywords.length > 0 ? p.matchedKeywords : fallbackKeywords;
  const to = `/project-details/${encodeURIComponent(p.projectId)}`;
  const agency = [p.deptName, p.deptSubName].filter(Boolean).join(" · ");
  const budget = bahtOf(p.budgetSatang, p.budget);
  const referencePrice = bahtOf(p.referencePriceSatang, p.referencePrice);
  const agreedPrice = bahtOf(p.agreedPriceSatang, p.agreedPrice);
  return (
    <li className={`result result-${view}`} data-testid="result-row" data-project-id={p.projectId}>
      <div className="result-head">
        <div className="result-title-wrap">
          <Link to={to} className="result-title" data-testid="result-title" title={loggedIn ? th.search.details : th.search.loginToView}>
            <Highlight text={p.projectName} keywords={keywords} />
          </Link>
          <p className="result-agency">
            {agency}
            {p.provinceName && <span className="result-province"> · {p.provinceName}</span>}
          </p>
        </div>
        <div className="result-side">
          <span className="result-budget" data-testid="result-budget">
            {budget !== undefined ? formatMoney(budget) : "–"}
          </span>
          <StatusBadge status={p.status} label={p.statusName} />
        </div>
      </div>
      <div className="result-line">
        <span className="chip">{p.projectId}</span>
        {p.announceTypeName && (
          <span className="result-step">
            <span className="step-code">{p.announceType}</span> {p.announceTypeName}
          </span>
        )}
        {p.announceDate && <span className="result-date">{formatIsoDateBE(p.announceDate)}</span>}
        <Deadlines submissionDue={p.submissionDue} hearingDue={p.hearingDue} />
      </div>
      {loggedIn && (
        <div className="result-marks">
          <MyBid p={p} />
          <MarkBar
            projectId={p.projectId}
            compact={view === "short"}
            marks={{ like: p.isUserLike, follow: p.isInterestToStepChk, fill20: p.isFill20, bid: p.isInterestToBid, archived: p.isArchived }}
          />
          <AddToPipelineButton projectId={p.projectId} compact={view === "short"} />
        </div>
      )}
      {view === "long" && (
        <dl className="result-meta">
          <Meta label={th.search.method}>{p.methodName}</Meta>
          <Meta label={th.search.category}>{p.typeName}</Meta>
          <Meta label={th.search.ministry}>{p.ministryName}</Meta>
          <Meta label={th.search.budgetYear}>{p.budgetYear > 0 ? String(p.budgetYear) : ""}</Meta>
          <Meta label={th.search.referencePrice}>{referencePrice !== undefined ? formatMoney(referencePrice) : ""}</Meta>
          <Meta label={th.search.agreedPrice}>{agreedPrice !== undefined ? formatMoney(agreedPrice) : ""}</Meta>
          <Meta label={th.search.winner}>{p.winnerName}</Meta>
          <div className="meta meta-actions">
            {p.egpUrl && (
              <a href={p.egpUrl} target="_blank" rel="noopener noreferrer" className="ext-link">
                {th.search.openEgp} ↗
              </a>
            )}
            <Link to={to} className="ext-link">
              {th.search.details} <IconArrowRight size={14} />
            </Link>
          </div>
        </dl>
      )}
    </li>
  );
}

export function ResultsSkeleton({ rows }: { rows: number }) {
  return (
    <ul className="results" aria-busy="true" data-testid="results-skeleton">
      {Array.from({ length: Math.min(rows, 6) }, (_, i) => (
        <li key={i} className="result result-skeleton">
          <div className="sk sk-line" />
          <div className="sk sk-line short" />
          <div className="sk sk-line tiny" />
        </li>
      ))}
    </ul>
  );
}

/** "พบ 1,234 รายการ" or, above the server's exact-count cap, "ประมาณ 30,000 รายการ". */
export function totalLabel(total: number, estimate: boolean): string {
  const n = formatNumber(total);
  return estimate ? th.search.totalEstimate(n) : th.search.total(n);
}
