import { lazy, Suspense } from "react";

/*
 * The market's parts other pages show, each its own chunk (the price guide
 * draws with the chart library, which the project page should not carry
 * until it shows the guide), with a placeholder of its own while it loads.
 */

const Guide = lazy(() => import("./price-guide").then((m) => ({ default: m.PriceGuidePanel })));
const Watchlist = lazy(() => import("./watchlist-section").then((m) => ({ default: m.WatchlistSection })));

function Placeholder() {
  return (
    <div className="card pd-section" aria-busy="true">
      <div className="sk sk-block" />
    </div>
  );
}

/** The price guide and bid simulator of a project (docs/market.md#price-guide), started from the user's saved bid. */
export function PriceGuide({ projectId, savedBid }: { projectId: string; savedBid?: { bidPrice?: number | null; reductionPercent?: number | null } }) {
  return (
    <Suspense fallback={<Placeholder />}>
      <Guide projectId={projectId} savedBid={savedBid} />
    </Suspense>
  );
}

/** The competitor watchlist of the settings (docs/market.md#competitor-watch). */
export function WatchlistSettings() {
  return (
    <Suspense fallback={<Placeholder />}>
      <Watchlist />
    </Suspense>
  );
}
