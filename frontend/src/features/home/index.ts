/** The home feature's public API. */
export { useTiers } from "./api/get-tiers";
export { TierCard } from "./components/pricing-section";
