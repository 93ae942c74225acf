import { useParams } from "react-router";
import { PlaceholderPage } from "@/components/ui/placeholder-page";
import { th } from "@/i18n/th";
import { NotificationSettingsSection } from "@/features/notifications";
import { AccountStatusSettings, PaymentSettings, PricingSettings } from "@/features/payment";
import type { ReactNode } from "react";

import type { SettingsSection } from "../sections";

export function SettingsSectionPage({ section }: { section?: SettingsSection }) {
  const params = useParams();
  const key = section ?? (params.section as SettingsSection);
  const real: Partial<Record<SettingsSection, ReactNode>> = {
    "notification-settings": <NotificationSettingsSection />,
    pricing: <PricingSettings />,
    "account-status": <AccountStatusSettings />,
    "payment-settings": <PaymentSettings />,
  };
  if (real[key]) {
    return (
      <section className="settings-section" data-testid={`settings-${key}`}>
        <h1>{th.pages.settings[key]}</h1>
        {real[key]}
      </section>
    );
  }
  return <PlaceholderPage title={th.pages.settings[key] ?? th.pages.settingsTitle} />;
}

export function ContactUsPage() {
  return (
    <PlaceholderPage title={th.pages.settings["contact-us"]} lead={th.pages.contactLead} soon={false}>
      <p>{th.pages.contactEmail}</p>
      <p className="muted">{th.pages.contactHours}</p>
    </PlaceholderPage>
  );
}
