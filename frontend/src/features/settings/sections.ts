/** The settings pages, in menu order (docs/product.md#settings-layout). */
export const SETTINGS_SECTIONS = [
  "user-info",
  "account-status",
  "pricing",
  "payment-settings",
  "notification-settings",
  "advanced-features",
  "security-settings",
  "search-criteria",
  "watchlist",
  "line-api",
  "contact-us",
] as const;

export type SettingsSection = (typeof SETTINGS_SECTIONS)[number];
