/**
 * The market feature's public API (bid intelligence: benchmarks, the price
 * guide, supplier and agency profiles, the competitor watchlist). The router
 * lazy-loads the market pages by their own paths, not from here.
 */
export { PriceGuide, WatchlistSettings } from "./components/lazy";
