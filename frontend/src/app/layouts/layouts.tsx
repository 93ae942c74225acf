import { Suspense } from "react";
import { NavLink, Outlet } from "react-router";
import { InlineSpinner } from "@/components/ui/skeleton";
import { th } from "@/i18n/th";
import { SETTINGS_SECTIONS } from "@/features/settings/sections";
import { AppShell } from "./app-shell";

const Fallback = () => (
  <div className="route-loading">
    <InlineSpinner />
  </div>
);

/** The public layout (docs/product.md#public-layout). */
export function PublicLayout() {
  return (
    <AppShell>
      <Suspense fallback={<Fallback />}>
        <Outlet />
      </Suspense>
    </AppShell>
  );
}

/** The search layout: /search, /project-details (docs/product.md#search-layout). */
export function SearchLayout() {
  return (
    <AppShell className="main main-search">
      <div className="container">
        <Suspense fallback={<Fallback />}>
          <Outlet />
        </Suspense>
      </div>
    </AppShell>
  );
}

/** The settings layout (docs/product.md#settings-layout): the section menu beside the page. */
export function SettingsLayout() {
  return (
    <AppShell className="main main-settings">
      <div className="container settings">
        <aside className="settings-nav">
          <h2>{th.pages.settingsTitle}</h2>
          <nav aria-label={th.pages.settingsNav}>
            {SETTINGS_SECTIONS.map((s) => (
              <NavLink key={s} to={`/user-settings/${s}`} className={({ isActive }) => `settings-link${isActive ? " active" : ""}`}>
                {th.pages.settings[s]}
              </NavLink>
            ))}
          </nav>
        </aside>
        <div className="settings-body">
          <Suspense fallback={<Fallback />}>
            <Outlet />
          </Suspense>
        </div>
      </div>
    </AppShell>
  );
}
