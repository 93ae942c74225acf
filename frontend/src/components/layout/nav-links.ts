import { th } from "@/i18n/th";

/** SPEC §2 header links: home, features, search, pricing, FAQ, contact. */
export const NAV_LINKS = [
  { key: "home", label: th.nav.home, to: { pathname: "/" } },
  { key: "features", label: th.nav.features, to: { pathname: "/", hash: "#features" } },
  { key: "search", label: th.nav.search, to: { pathname: "/search" } },
  { key: "pricing", label: th.nav.pricing, to: { pathname: "/", hash: "#pricing" } },
  { key: "faq", label: th.nav.faq, to: { pathname: "/", hash: "#faq" } },
  { key: "contact", label: th.nav.contact, to: { pathname: "/user-settings/contact-us" } },
] as const;
