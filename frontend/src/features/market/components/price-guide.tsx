import { useId, useState } from "react";
import { Link } from "react-router";
import { th } from "@/i18n/th";
import { formatNumber } from "@/lib/format";
import { MoneyInput } from "@/components/ui/money-input";
import { FieldFrame, fieldDescribedBy } from "@/components/ui/field-frame";
import type { GetPriceGuideResponse as PriceGuide } from "@/gen/market/v1/market_pb";
import { isUpgradeRequired, useMarketAccess, usePriceGuide } from "../api/market-api";
import { bandOf, bidFor, bidsAtPercentiles, discountOf, parseDiscount } from "../lib/simulator";
import { useDebounced } from "../lib/use-debounced";
import { useBidsStore } from "@/stores/bids-store";
import { benchmarkView, fmtBaht, fmtPct, type BenchmarkView } from "../lib/view";
import { DiscountHistogram } from "./charts";
import { MarketError, SpreadBar, UpgradePrompt } from "./parts";
import "../market.css";

const t = th.market;
/** The pause after the last key before the server places the bid. */
export const BID_DEBOUNCE_MS = 350;

/** The group a guide used, in Thai (its basis and the names of its keys). */
export function basisText(g: Pick<PriceGuide, "basis" | "group" | "minGroupSize">): string {
  const words = t.bases[g.basis];
  if (!words) return t.basisNone(formatNumber(Number(g.minGroupSize) || 20));
  const k = g.group;
  return words({ dept: k?.deptName || k?.deptCode || "", method: k?.methodName || k?.methodCode || "", type: k?.typeName || k?.typeCode || "" });
}

/** The market page filtered to the guide's group (the search filters' own URL names). */
export function groupHref(g: Pick<PriceGuide, "basis" | "group">): string {
  const sp = new URLSearchParams();
  const k = g.group;
  if (k?.deptCode && g.basis.startsWith("agency")) sp.append("dept_User", k.deptCode);
  if (k?.methodCode && g.basis.includes("method")) sp.append("method_User_required", k.methodCode);
  if (k?.typeCode && g.basis.includes("category")) sp.append("typeTran_User", k.typeCode);
  const qs = sp.toString();
  return qs ? `/market?${qs}` : "/market";
}

type Entry = { from: "bid"; bid: number | null } | { from: "pct"; text: string };

/** The user's own bid on a project: a price in baht and/or a discount in percent. */
export type SavedBid = { bidPrice?: number | null; reductionPercent?: number | null };

/**
 * Where the simulator starts: the user's own saved bid for the project, its
 * price when there is one, else its discount; empty without one. The bids
 * store (the newer of the browser's and the server's copy) comes before the
 * project's own row.
 */
export function savedEntry(...bids: Array<SavedBid | null | undefined>): Entry {
  for (const b of bids) {
    if (b?.bidPrice != null && Number.isFinite(b.bidPrice) && b.bidPrice > 0) return { from: "bid", bid: b.bidPrice };
    if (b?.reductionPercent != null && Number.isFinite(b.reductionPercent)) return { from: "pct", text: String(b.reductionPercent) };
  }
  return { from: "bid", bid: null };
}

/**
 * The simulator: a bid in baht or a discount in percent, each computing the
 * other from the project's reference price; the server places the settled
 * bid in the group (its percentile rank is the answer shown), the band
 * among the group's percentiles is read off the same figures.
 */
function Simulator({ guide, view, bid, onEntry, entry, fetching }: {
  guide: PriceGuide;
  view: BenchmarkView;
  bid: number | null;
  entry: Entry;
  onEntry: (e: Entry) => void;
  fetching: boolean;
}) {
  const pctId = useId();
  const ref = guide.referencePrice;
  const typedPct = entry.from === "pct" ? parseDiscount(entry.text) : null;
  const pctError = entry.from === "pct" && Number.isNaN(typedPct) ? t.simDiscountInvalid : "";
  const pctText = entry.from === "pct" ? entry.text : bid !== null ? String(discountOf(ref, bid) ?? "") : "";
  const discount = discountOf(ref, bid);
  // The server's answer counts only for the bid on screen.
  const placed = guide.bid && bid !== null && Math.abs(guide.bid.bidPrice - bid) < 0.005 ? guide.bid : undefined;
  const rank = placed?.percentileRank;

  return (
    <div className="mk-sim" data-testid="mk-simulator">
      <h3>{t.simulator}</h3>
      <div className="mk-sim-inputs">
        <MoneyInput label={t.simBid} value={bid} onChange={(v) => onEntry({ from: "bid", bid: v })} testId="mk-sim-bid" />
        <FieldFrame id={pctId} label={t.simDiscount} error={pctError}>
          <div className="field-control">
            <input
              id={pctId}
              value={pctText}
              inputMode="decimal"
              autoComplete="off"
              onChange={(e) => onEntry({ from: "pct", text: e.target.value })}
              aria-invalid={pctError ? true : undefined}
              aria-describedby={fieldDescribedBy(pctId, pctError)}
              data-testid="mk-sim-pct"
            />
          </div>
        </FieldFrame>
      </div>
      <div className="mk-sim-result" aria-live="polite" data-testid="mk-sim-result">
        {bid === null || discount === null ? (
          <p className="muted">{t.simPrompt}</p>
        ) : (
          <>
            <p className="mk-sim-discount">
              {t.discount} <strong data-testid="mk-sim-discount">{fmtPct(discount)}</strong> · {fmtBaht(bid)}
            </p>
            {fetching || !placed ? (
              <p className="muted" data-testid="mk-sim-checking">
                {t.simChecking}
              </p>
            ) : rank !== undefined ? (
              <p className="mk-sim-rank" data-testid="mk-sim-rank">
                {t.simRank(fmtPct(rank))}
              </p>
            ) : null}
            {view.pct && (
              <p className="small" data-testid="mk-sim-band">
                {t.bands[bandOf(view.pct, discount)]}
              </p>
            )}
          </>
        )}
      </div>
      {view.pct && (
        <div className="mk-at">
          <p className="small muted">{t.atPercentiles}</p>
          <ul className="mk-at-list" data-testid="mk-at-percentiles">
            {bidsAtPercentiles(ref, view.pct).map((r) => (
              <li key={r.key}>
                <button
                  type="button"
                  className={`mk-at-btn${r.key === "p50" ? " mk-at-main" : ""}`}
                  disabled={r.bid === null}
                  onClick={() => onEntry({ from: "pct", text: String(r.discountPct) })}
                  data-testid={`mk-at-${r.key}`}
                >
                  <span className="mk-at-key">{t.percentile(Number(r.key.slice(1)))}</span>
                  <span>{fmtPct(r.discountPct)}</span>
                  <strong>{fmtBaht(r.bid)}</strong>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/**
 * The price guide on a project's page (plans with market_benchmarks): how far
 * below the reference price the nearest group of awarded projects was won,
 * and a bid simulator. Free plans see the way to the plans.
 */
export function PriceGuidePanel({ projectId, savedBid }: { projectId: string; savedBid?: SavedBid }) {
  const access = useMarketAccess();
  const stored = useBidsStore((s) => s.bids[projectId]);
  // Until the user types, the simulator shows their own saved bid.
  const [typed, setEntry] = useState<Entry | null>(null);
  const entry = typed ?? savedEntry(stored, savedBid);
  const [ref, setRef] = useState<number | undefined>(undefined);
  const bid = entry.from === "bid" ? entry.bid : bidFor(ref, parseDiscount(entry.text));
  const settled = useDebounced(bid, BID_DEBOUNCE_MS);
  const q = usePriceGuide(projectId, settled, access.ask.benchmarks);
  const g = q.data;
  if (g && g.referencePrice !== ref) setRef(g.referencePrice);
  const refused = access.benchmarks === false || (q.isError && isUpgradeRequired(q.error));
  const view = g ? benchmarkView(g) : undefined;
  const discount = g ? discountOf(g.referencePrice, bid) : null;

  return (
    <section className="card pd-section mk-guide" aria-labelledby="mk-guide-h" data-testid="price-guide">
      <h2 id="mk-guide-h">{t.guideTitle}</h2>
      {refused ? (
        <UpgradePrompt what="benchmarks" compact />
      ) : q.isError && !g ? (
        <MarketError error={q.error} onRetry={() => void q.refetch()} />
      ) : !g || !view ? (
        <div className="sk sk-block" aria-busy="true" />
      ) : (
        <>
          <p className="muted small">{t.guideLead}</p>
          <p className="mk-basis" data-testid="mk-basis">
            <span className="muted">{t.basis}: </span>
            {basisText(g)}
          </p>
          {g.basis !== "none" && view.pct && (
            <>
              <p className="small" data-testid="mk-n-line">
                {t.nLine(formatNumber(view.n), formatNumber(view.nWithoutReference))}
              </p>
              <SpreadBar pct={view.pct} bidPct={discount} />
              <DiscountHistogram bins={view.histogram} highlightPct={discount} testId="mk-guide-histogram" />
            </>
          )}
          {g.referencePrice === undefined ? (
            <p className="muted" data-testid="mk-no-reference">
              {t.noReference}
            </p>
          ) : (
            <>
              <p className="muted small" data-testid="mk-reference">
                {t.referencePrice} {fmtBaht(g.referencePrice)} · {t.basedOn(g.referenceKind)}
              </p>
              <Simulator guide={g} view={view} bid={bid} entry={entry} onEntry={setEntry} fetching={q.isFetching || settled !== bid} />
            </>
          )}
          <Link to={groupHref(g)} className="mk-more" data-testid="mk-open-market">
            {t.openMarket} ›
          </Link>
        </>
      )}
    </section>
  );
}
