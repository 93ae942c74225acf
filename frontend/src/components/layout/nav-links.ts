import type { ComponentType, SVGProps } from "react";
import { th } from "@/i18n/th";
import { IconBell, IconChart, IconFlag, IconFolder, IconSearch, IconSettings } from "@/components/ui/icons";

export type NavLinkTarget = { pathname: string; hash?: string };

export type NavItem = {
  key: string;
  label: string;
  to: NavLinkTarget;
  icon?: ComponentType<SVGProps<SVGSVGElement> & { size?: number }>;
  /** Paths under which this entry is the current one (default: to.pathname). */
  match?: readonly string[];
};

/** Visitors: the marketing menu (home, features, search, pricing, FAQ, contact). */
export const MARKETING_LINKS: readonly NavItem[] = [
  { key: "home", label: th.nav.home, to: { pathname: "/" } },
  { key: "features", label: th.nav.features, to: { pathname: "/", hash: "#features" } },
  { key: "search", label: th.nav.search, to: { pathname: "/search" } },
  { key: "pricing", label: th.nav.pricing, to: { pathname: "/", hash: "#pricing" } },
  { key: "faq", label: th.nav.faq, to: { pathname: "/", hash: "#faq" } },
  { key: "contact", label: th.nav.contact, to: { pathname: "/user-settings/contact-us" } },
];

/**
 * Signed-in users: the app itself, in the order of a bid manager's day. A new
 * area (a bid pipeline, a market view) is one more entry here; the desktop
 * bar and the slide-in menu both render this list.
 */
export const APP_LINKS: readonly NavItem[] = [
  { key: "search", label: th.nav.search, to: { pathname: "/search" }, icon: IconSearch, match: ["/search", "/project-details"] },
  { key: "my-projects", label: th.nav.myProjects, to: { pathname: "/my-projects" }, icon: IconFolder },
  { key: "market", label: th.nav.market, to: { pathname: "/market" }, icon: IconChart },
  // One entry for the team's work: the board, and under it the teams' own pages (members, keys, joining).
  { key: "pipeline", label: th.nav.pipeline, to: { pathname: "/pipeline" }, icon: IconFlag, match: ["/pipeline", "/teams"] },
  { key: "notifications", label: th.nav.notifications, to: { pathname: "/notifications" }, icon: IconBell },
  { key: "settings", label: th.nav.settings, to: { pathname: "/user-settings" }, icon: IconSettings },
];

export function navLinksFor(signedIn: boolean): readonly NavItem[] {
  return signedIn ? APP_LINKS : MARKETING_LINKS;
}

/** Whether item is the page at loc: a hash link only on its own anchor, "/" only bare. */
export function isCurrent(loc: { pathname: string; hash: string }, item: NavItem): boolean {
  const { to } = item;
  if (to.hash) return loc.pathname === "/" && loc.hash === to.hash;
  if (to.pathname === "/") return loc.pathname === "/" && !loc.hash;
  const under = (p: string) => loc.pathname === p || loc.pathname.startsWith(`${p}/`);
  return (item.match ?? [to.pathname]).some(under);
}
