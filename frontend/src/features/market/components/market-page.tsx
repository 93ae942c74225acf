import { useMemo } from "react";
import { Link, useSearchParams } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { IconSearch } from "@/components/ui/icons";
import { CriteriaForm, defaultState, parseSearchParams, toSearchParams, useDropdownData, type ListKey } from "@/features/search";
import { isUpgradeRequired, useBenchmarks, useMarketAccess } from "../api/market-api";
import { benchmarkView } from "../lib/view";
import { DiscountHistogram, YearTrend } from "./charts";
import { MarketError, SpreadBar, StatTiles, UpgradePrompt, WinnersList } from "./parts";
import "../market.css";

const t = th.market;

/** The search filters GetBenchmarks does not take (docs/market.md#definitions: the GET /gen-infor filters over awarded projects). */
export const MARKET_OMIT: readonly ListKey[] = ["projectIds", "announceTypes", "statuses", "strategies"];

/**
 * /market (sign-in; plans with market_benchmarks): the search filters, then
 * how far below the reference price the matching awarded projects were won,
 * the spread, the trend by budget year and who won. The filters live in the
 * URL with the search page's names, so a market view is a link.
 */
export function MarketPage() {
  usePageTitle(th.titles.market);
  const [params, setParams] = useSearchParams();
  const criteria = useMemo(() => parseSearchParams(params).criteria, [params]);
  const access = useMarketAccess();
  const dropdowns = useDropdownData();
  const q = useBenchmarks(criteria, access.ask.benchmarks);
  const refused = access.benchmarks === false || (q.isError && isUpgradeRequired(q.error));
  const b = q.data ? benchmarkView(q.data) : undefined;

  return (
    <div className="mk-page" data-testid="market-page">
      <header className="search-hero mk-hero">
        <h1>{th.titles.market}</h1>
        <p className="lead">{t.lead}</p>
        <Link to="/market/suppliers" className="btn btn-secondary btn-md mk-hero-link" data-testid="mk-supplier-search-link">
          <IconSearch size={18} /> {t.supplierSearch}
        </Link>
      </header>

      <CriteriaForm
        applied={criteria}
        dropdowns={dropdowns.data}
        dropdownsLoading={dropdowns.isPending}
        omit={MARKET_OMIT}
        onSubmit={(c) => setParams(toSearchParams({ ...defaultState(), criteria: c }))}
      />

      <section className="mk-results" aria-label={t.spread} aria-busy={q.isFetching}>
        {refused ? (
          <UpgradePrompt what="benchmarks" />
        ) : q.isError && !b ? (
          <MarketError error={q.error} onRetry={() => void q.refetch()} />
        ) : !b ? (
          <div className="card mk-loading" aria-busy="true" data-testid="mk-loading">
            <div className="sk sk-block" />
          </div>
        ) : b.n === 0 ? (
          <>
            <StatTiles n={b.n} nWithout={b.nWithoutReference} />
            <div className="state-card" data-testid="mk-empty">
              <h2>{t.empty}</h2>
              <p className="muted">{t.emptyLead}</p>
            </div>
          </>
        ) : (
          <div className={q.isPlaceholderData ? "mk-stale" : undefined}>
            <StatTiles n={b.n} nWithout={b.nWithoutReference} pct={b.pct} />
            <p className="muted small" data-testid="mk-n-line">
              {t.nLine(b.n.toLocaleString("th-TH"), b.nWithoutReference.toLocaleString("th-TH"))}
            </p>
            <div className="mk-grid">
              <section className="card mk-card" aria-labelledby="mk-spread-h">
                <h2 id="mk-spread-h">{t.spread}</h2>
                {b.pct && <SpreadBar pct={b.pct} />}
                <DiscountHistogram bins={b.histogram} />
              </section>
              <section className="card mk-card" aria-labelledby="mk-trend-h">
                <h2 id="mk-trend-h" className="sr-only">
                  {t.trend}
                </h2>
                <YearTrend rows={b.byYear} />
              </section>
            </div>
            <section className="card mk-card" aria-labelledby="mk-winners-h">
              <h2 id="mk-winners-h">{t.topWinners}</h2>
              <WinnersList rows={b.winners} />
            </section>
          </div>
        )}
      </section>
    </div>
  );
}
