import { lazy } from "react";

/**
 * The search feature's public API: what other features may use (the
 * lint's feature-boundary rule keeps them from reaching past this file).
 * The router lazy-loads the search page by its own path, not from here.
 */
export { CriteriaSummary } from "./components/criteria-summary";
export { useSavedCriteria } from "./api/search-api";
export { editHref } from "./lib/criteria";
export { useFirstStep } from "./lib/first-step";
/** The first step of a new account (a first saved search); its own chunk, only signed-in users see it. */
export const FirstStep = lazy(() => import("./components/first-step").then((m) => ({ default: m.FirstStep })));
export { normalRoom, normalUsage, overnightRoom, overnightUsage, type OvernightRoom } from "./lib/limits";
/** The criteria form and its URL round trip, for other pages that filter projects the same way (the market). */
export { CriteriaForm } from "./components/criteria-form";
export { useDropdownData } from "./api/search-api";
export { defaultState, emptyCriteria, parseSearchParams, toSearchParams, type Criteria, type ListKey } from "./lib/criteria";
