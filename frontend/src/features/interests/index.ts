/**
 * The interests feature's public API: what other features may use (the
 * lint's feature-boundary rule keeps them from reaching past this file).
 * The router lazy-loads the my-projects page by its own path, not from here.
 */
export { InterestPanel } from "./components/details";
export { ListingFilterBar, MarkBar } from "./components/marks";
export {
  filtersFromParams,
  filtersToParams,
  filtersToRequest,
  noFilters,
  toggleFilter,
  type FilterToggle,
  type ListingFilters,
} from "./lib/filters";
