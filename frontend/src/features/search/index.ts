/**
 * The search feature's public API: what other features may use (the
 * lint's feature-boundary rule keeps them from reaching past this file).
 * The router lazy-loads the search page by its own path, not from here.
 */
export { CriteriaSummary } from "./components/criteria-summary";
export { useSavedCriteria } from "./api/search-api";
export { editHref } from "./lib/criteria";
export { normalRoom, normalUsage, overnightRoom, overnightUsage, type OvernightRoom } from "./lib/limits";
