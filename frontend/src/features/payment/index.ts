/** The payment feature's public API. */
export { AccountStatusSettings, PaymentSettings, PricingSettings } from "./components/settings-sections";
export { useMySubscription } from "./api/payment-api";
export { DeletionPlanNotice } from "./components/billing-sections";
