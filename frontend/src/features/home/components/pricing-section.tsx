import { Link } from "react-router";
import type { Tier } from "@/gen/subscription/v1/subscription_pb";
import { Button } from "@/components/ui/button";
import { IconCheck } from "@/components/ui/icons";
import { formatBaht, formatNumber } from "@/lib/format";
import { th } from "@/i18n/th";
import { useTiers } from "../api/get-tiers";

const POPULAR = "pro";

function limitText(n: number | undefined, unit: string): string {
  if (n === undefined) return "–";
  if (n < 0) return th.common.unlimited;
  return `${formatNumber(n)} ${unit}`;
}

/**
 * What a tier includes, in Thai, from the tier table's values only (the
 * numbers and feature keys ListTiers serves, which the services enforce):
 * saved searches of each kind, the bell, each feature, then the watchlist
 * and the team's seats. Each line has a key for tests.
 */
export function tierLines(tier: Pick<Tier, "combinationLimits" | "features">): Array<[key: string, text: string]> {
  const h = th.home;
  const l = tier.combinationLimits;
  const out: Array<[string, string]> = [];
  if (l) {
    const normal = l.normalSearchSave;
    out.push(["normal_search_save", normal < 0 ? h.savedSearchesUnlimited : h.savedSearches(formatNumber(normal))]);
    const night = l.overnightSearchSave;
    if (night !== 0) out.push(["overnight_search_save", night < 0 ? h.overnightUnlimited : h.overnightSearches(formatNumber(night))]);
  }
  out.push(["bell", h.bellAlerts]);
  for (const f of tier.features) {
    if (h.tierFeatures[f]) out.push([f, h.tierFeatures[f]]);
  }
  if (l && l.watchlistSize !== 0) {
    out.push(["watchlist_size", l.watchlistSize < 0 ? h.watchlistUnlimited : h.watchlist(formatNumber(l.watchlistSize))]);
  }
  if (l && l.teamSeats !== 0) {
    out.push(["team_seats", l.teamSeats < 0 ? h.teamSeatsUnlimited : h.teamSeats(formatNumber(l.teamSeats))]);
  }
  return out;
}

/**
 * A card's counted limits, as the server enforces them: saved-search
 * combinations and live look-ups at e-GP. Filtering the database is open to
 * everybody (unlimited in every tier), so it is not listed as a limit.
 */
export function limitRows(l: Tier["combinationLimits"]): Array<[string, string]> {
  const h = th.home;
  return [
    [
      h.limits.search_combination,
      l && l.searchCombination < 0
        ? th.common.unlimited
        : `${limitText(l?.searchCombination, h.perDay)} · ${limitText(l?.searchCombinationMonth, h.perMonthCount)}`,
    ],
    [h.limits.explore_live_search, l && l.exploreLiveSearch === 0 ? "–" : limitText(l?.exploreLiveSearch, h.perDay)],
  ];
}

/** One tier: price, limits, what it includes and its call to action (current: marked, no button). */
export function TierCard({ tier, current }: { tier: Tier; current?: boolean }) {
  const h = th.home;
  const l = tier.combinationLimits;
  const popular = tier.tier === POPULAR;
  const free = tier.price === 0;
  const rows = limitRows(l);
  return (
    <article className={`tier${popular ? " tier-popular" : ""}`} data-testid={`tier-${tier.tier}`}>
      {popular && <span className="tier-badge">{h.pricingPopular}</span>}
      <h3>{tier.label || tier.tier}</h3>
      <p className="tier-price">
        <strong>{formatBaht(tier.price)}</strong>
        <span>{th.common.perMonth}</span>
      </p>
      <p className="tier-yearly">{tier.priceYearly > 0 ? h.pricingYearly(formatBaht(tier.priceYearly)) : "\u00a0"}</p>
      <ul className="tier-limits">
        {rows.map(([k, v]) => (
          <li key={k}>
            <IconCheck size={16} />
            <span>
              {k}: <b>{v}</b>
            </span>
          </li>
        ))}
        {tierLines(tier).map(([k, text]) => (
          <li key={k} data-testid={`plan-line-${k}`}>
            <IconCheck size={16} />
            <span>{text}</span>
          </li>
        ))}
      </ul>
      {current ? (
        <p className="tier-current" data-testid={`tier-current-${tier.tier}`}>
          {th.payment.currentPlan}
        </p>
      ) : (
        <Link to={free ? "/signup" : `/payment?tier=${tier.tier}`} className={`btn btn-block btn-md ${popular ? "btn-primary" : "btn-secondary"}`}>
          {free ? h.pricingStartFree : h.pricingChoose}
        </Link>
      )}
    </article>
  );
}

/** #pricing: the tiers served by subscription.v1 ListTiers. */
export function PricingSection() {
  const { data, isPending, isError, refetch } = useTiers();
  return (
    <section id="pricing" className="section section-alt" aria-labelledby="pricing-title">
      <div className="container">
        <header className="section-head">
          <h2 id="pricing-title">{th.home.pricingTitle}</h2>
          <p>{th.home.pricingLead}</p>
        </header>
        {isPending && (
          <div className="tiers" aria-busy="true" aria-label={th.home.pricingLoading}>
            {[0, 1, 2, 3].map((i) => (
              <div key={i} className="tier tier-skeleton">
                <div className="sk sk-line short" />
                <div className="sk sk-title" />
                <div className="sk sk-block" />
              </div>
            ))}
          </div>
        )}
        {isError && (
          <div className="notice notice-error" role="alert">
            <p>{th.home.pricingError}</p>
            <Button variant="secondary" size="sm" onClick={() => void refetch()}>
              {th.home.pricingRetry}
            </Button>
          </div>
        )}
        {data && (
          <div className="tiers">
            {data.map((t) => (
              <TierCard key={t.tier} tier={t} />
            ))}
          </div>
        )}
      </div>
    </section>
  );
}
