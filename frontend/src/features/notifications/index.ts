/** The notifications feature's public API. */
export { BellButton } from "./components/bell-button";
export { BellLive } from "./components/bell-live";
export { NotificationSettingsSection } from "./components/notification-settings";
