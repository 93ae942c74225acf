/** The home feature's public API. */
export { useTiers } from "./api/get-tiers";
export { TierCard, tierLines } from "./components/pricing-section";
