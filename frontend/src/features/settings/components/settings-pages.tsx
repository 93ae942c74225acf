import type { ReactNode } from "react";
import { useParams } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { NotificationSettingsSection } from "@/features/notifications";
import { AccountStatusSettings, PaymentSettings, PricingSettings } from "@/features/payment";
import { NotFoundSection } from "./not-found-section";
import { ContactForm } from "./self-service";
import { AdvancedFeaturesSection, LineSection, SecuritySection, UserInfoSection } from "./account-sections";
import { SearchCriteriaSection } from "./search-criteria-section";
import { WatchlistSettings } from "@/features/market";
import type { SettingsSection } from "../sections";

const SECTIONS: Record<Exclude<SettingsSection, "contact-us">, () => ReactNode> = {
  "user-info": () => <UserInfoSection />,
  "account-status": () => <AccountStatusSettings />,
  pricing: () => <PricingSettings />,
  "payment-settings": () => <PaymentSettings />,
  "notification-settings": () => <NotificationSettingsSection />,
  "advanced-features": () => <AdvancedFeaturesSection />,
  "security-settings": () => <SecuritySection />,
  "search-criteria": () => <SearchCriteriaSection />,
  watchlist: () => <WatchlistSettings />,
  "line-api": () => <LineSection />,
};

/** One settings page (docs/product.md#settings-layout; every one does its job). */
export function SettingsSectionPage({ section }: { section?: SettingsSection }) {
  const params = useParams();
  const key = (section ?? params.section) as Exclude<SettingsSection, "contact-us">;
  const title = th.pages.settings[key] ?? th.pages.settingsTitle;
  usePageTitle(title);
  const render = SECTIONS[key];
  if (!render) return <NotFoundSection />;
  return (
    <section className="settings-section" data-testid={`settings-${key}`}>
      <h1>{title}</h1>
      {render()}
    </section>
  );
}

export function ContactUsPage() {
  usePageTitle(th.pages.settings["contact-us"]);
  return (
    <section className="settings-section" data-testid="settings-contact-us">
      <h1>{th.pages.settings["contact-us"]}</h1>
      <p className="lead">{th.pages.contactLead}</p>
      <ContactForm />
      <p>{th.pages.contactEmail}</p>
      <p className="muted">{th.pages.contactHours}</p>
    </section>
  );
}
