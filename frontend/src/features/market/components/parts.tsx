import { Link } from "react-router";
import { th } from "@/i18n/th";
import { errorMessage } from "@/lib/errors";
import { formatNumber } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { IconAlert } from "@/components/ui/icons";
import { PERCENTILE_KEYS, positionOn, spreadScale, type Percentiles } from "../lib/simulator";
import { fmtBahtShort, fmtPct, type WinnerRow } from "../lib/view";
import { formatTaxId } from "../lib/tax-id";

const t = th.market;

/** What a lower tier sees instead (docs/market.md#tiers): why, and the way to the plans. */
export function UpgradePrompt({ what, compact = false }: { what: "benchmarks" | "profiles"; compact?: boolean }) {
  return (
    <div className={`mk-upgrade${compact ? " mk-upgrade-compact" : " card"}`} data-testid={`mk-upgrade-${what}`}>
      <strong>{t.upgradeTitle}</strong>
      <p>{what === "benchmarks" ? t.upgradeBenchmarks : t.upgradeProfiles}</p>
      <Link className="btn btn-primary btn-md" to="/user-settings/pricing" data-testid="mk-upgrade-link">
        {t.upgradeCta}
      </Link>
    </div>
  );
}

export function MarketError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <div className="state-card state-error" role="alert" data-testid="mk-error">
      <IconAlert size={28} />
      <h2>{t.errorTitle}</h2>
      <p>{errorMessage(error, "Failed to fetch data")}</p>
      <Button variant="secondary" onClick={onRetry}>
        {t.retry}
      </Button>
    </div>
  );
}

/** n, n_without_reference, the median and the mean, as tiles. */
export function StatTiles({ n, nWithout, pct }: { n: number; nWithout: number; pct?: Percentiles & { mean: number } }) {
  return (
    <dl className="mk-tiles" data-testid="mk-tiles">
      <div className="mk-tile">
        <dt>{t.n}</dt>
        <dd data-testid="mk-n">{formatNumber(n)}</dd>
      </div>
      <div className="mk-tile mk-tile-main">
        <dt>{t.median}</dt>
        <dd data-testid="mk-p50">{fmtPct(pct?.p50)}</dd>
      </div>
      <div className="mk-tile">
        <dt>{t.mean}</dt>
        <dd data-testid="mk-mean">{fmtPct(pct?.mean)}</dd>
      </div>
      <div className="mk-tile mk-tile-muted">
        <dt>{t.nWithout}</dt>
        <dd data-testid="mk-n-without">{formatNumber(nWithout)}</dd>
      </div>
    </dl>
  );
}

/**
 * The group's spread: p10..p90 as a bar, p25..p75 as its box, the median a
 * tick, and the user's bid a marker; the five values under it.
 */
export function SpreadBar({ pct, bidPct, testId = "mk-spread" }: { pct: Percentiles; bidPct?: number | null; testId?: string }) {
  const { lo, hi } = spreadScale(pct, bidPct);
  const at = (x: number) => `${positionOn(lo, hi, x)}%`;
  const hasBid = bidPct !== null && bidPct !== undefined && Number.isFinite(bidPct);
  return (
    <div className="mk-spread" data-testid={testId}>
      <div className="mk-spread-track" aria-hidden="true">
        <span className="mk-spread-whisker" style={{ left: at(pct.p10), width: `calc(${at(pct.p90)} - ${at(pct.p10)})` }} />
        <span className="mk-spread-box" style={{ left: at(pct.p25), width: `calc(${at(pct.p75)} - ${at(pct.p25)})` }} />
        <span className="mk-spread-median" style={{ left: at(pct.p50) }} />
        {hasBid && <span className="mk-spread-bid" style={{ left: at(bidPct) }} data-testid="mk-spread-bid" />}
      </div>
      <dl className="mk-spread-values">
        {PERCENTILE_KEYS.map((k) => (
          <div key={k} className={k === "p50" ? "mk-pv-main" : undefined}>
            <dt title={t.percentileLong(Number(k.slice(1)))}>{t.percentile(Number(k.slice(1)))}</dt>
            <dd data-testid={`mk-spread-${k}`}>{fmtPct(pct[k])}</dd>
          </div>
        ))}
      </dl>
      <p className="muted small">{t.spreadLead}</p>
    </div>
  );
}

/** A winner's page, when it has a tax id; name-grouped winners have none. */
export function supplierHref(taxId: string): string {
  return `/market/suppliers/${encodeURIComponent(taxId)}`;
}

/** The top winners as a list of cards (a table would scroll sideways on a phone). */
export function WinnersList({ rows, linkable = true, testId = "mk-winners" }: { rows: readonly WinnerRow[]; linkable?: boolean; testId?: string }) {
  if (rows.length === 0) return <p className="muted">{t.empty}</p>;
  return (
    <ol className="mk-winners" data-testid={testId}>
      {rows.map((w, i) => (
        <li key={w.taxId ?? `name:${w.name}`} className="mk-winner" data-testid="mk-winner">
          <span className="mk-rank">{i + 1}</span>
          <div className="mk-winner-body">
            {w.taxId && linkable ? (
              <Link to={supplierHref(w.taxId)} className="mk-winner-name" data-testid="mk-winner-link">
                {w.name}
              </Link>
            ) : (
              <span className="mk-winner-name">{w.name}</span>
            )}
            <span className="mk-winner-id muted small">{w.taxId ? formatTaxId(w.taxId) : t.noTaxId}</span>
          </div>
          <dl className="mk-winner-figs">
            <div>
              <dt>{t.wins}</dt>
              <dd>{formatNumber(w.wins)}</dd>
            </div>
            <div>
              <dt>{t.totalBaht}</dt>
              <dd>{fmtBahtShort(w.totalBaht)}</dd>
            </div>
            <div>
              <dt>{t.medianDiscount}</dt>
              <dd>{fmtPct(w.p50DiscountPct)}</dd>
            </div>
          </dl>
        </li>
      ))}
    </ol>
  );
}
