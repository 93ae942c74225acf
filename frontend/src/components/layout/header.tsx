import { useEffect, useRef, useState } from "react";
import { Link, useLocation } from "react-router";
import { th } from "@/i18n/th";
import { useAuthStore, type AppUser } from "@/stores/auth-store";
import { Avatar } from "@/components/ui/avatar";
import { Logo } from "@/components/ui/logo";
import { IconChevronDown, IconClose, IconFolder, IconLogout, IconMenu, IconSettings } from "@/components/ui/icons";
import { BellButton } from "@/features/notifications";
import { isCurrent, navLinksFor, type NavItem } from "./nav-links";

/** Tailwind's md breakpoint: below it the header collapses into the slide-in menu. */
export const MD_BREAKPOINT_PX = 768;

type Props = { onLogout: () => void; loggingOut?: boolean };

/** One entry of the menu; the current page is marked for the eye and for screen readers. */
function NavEntry({ item, current, className, onClick }: { item: NavItem; current: boolean; className: string; onClick?: () => void }) {
  const Icon = item.icon;
  return (
    <Link
      to={item.to}
      className={`${className}${current ? " active" : ""}`}
      aria-current={current ? "page" : undefined}
      onClick={onClick}
      data-testid={`nav-${item.key}`}
    >
      {Icon && <Icon size={18} className="nav-icon" />}
      <span>{item.label}</span>
    </Link>
  );
}

function UserMenu({ user, onLogout }: { user: AppUser; onLogout: () => void }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDoc = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    document.addEventListener("mousedown", onDoc);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDoc);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);
  const display = user.name || user.username || user.email;
  return (
    <div className="user-menu" ref={ref}>
      <button
        type="button"
        className="user-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={th.nav.userMenu}
        onClick={() => setOpen((o) => !o)}
        data-testid="user-menu-button"
      >
        <Avatar name={user.name} username={user.username} pictureUrl={user.pictureUrl} size={34} />
        <span className="user-menu-name">{display}</span>
        <IconChevronDown size={16} />
      </button>
      {open && (
        <div className="user-menu-panel" role="menu">
          <div className="user-menu-head">
            <Avatar name={user.name} username={user.username} pictureUrl={user.pictureUrl} size={40} />
            <div>
              <p className="user-menu-title" data-testid="user-menu-name">
                {user.name || user.username}
              </p>
              <p className="user-menu-email" data-testid="user-menu-email">
                {user.email}
              </p>
            </div>
          </div>
          <Link role="menuitem" to="/my-projects" className="user-menu-item" onClick={() => setOpen(false)} data-testid="menu-my-projects">
            <IconFolder size={18} />
            {th.nav.myProjects}
          </Link>
          <Link role="menuitem" to="/user-settings" className="user-menu-item" onClick={() => setOpen(false)}>
            <IconSettings size={18} />
            {th.nav.settings}
          </Link>
          <button
            role="menuitem"
            type="button"
            className="user-menu-item danger"
            onClick={() => {
              setOpen(false);
              onLogout();
            }}
          >
            <IconLogout size={18} />
            {th.nav.logout}
          </button>
        </div>
      )}
    </div>
  );
}

export function Header({ onLogout, loggingOut }: Props) {
  const user = useAuthStore((s) => s.user);
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  // Signed in: the app's own areas; visitors: the marketing menu.
  const links = navLinksFor(!!user);

  // Close the slide-in menu on navigation.
  useEffect(() => setMenuOpen(false), [location.pathname, location.hash]);

  // Body scroll locked while the mobile menu is open; Escape and widening the window close it.
  useEffect(() => {
    if (!menuOpen) return;
    const prev = document.body.style.overflow;
    document.body.style.overflow = "hidden";
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setMenuOpen(false);
    const mq = window.matchMedia?.(`(min-width: ${MD_BREAKPOINT_PX}px)`);
    const onMq = (e: MediaQueryListEvent) => e.matches && setMenuOpen(false);
    document.addEventListener("keydown", onKey);
    mq?.addEventListener?.("change", onMq);
    return () => {
      document.body.style.overflow = prev;
      document.removeEventListener("keydown", onKey);
      mq?.removeEventListener?.("change", onMq);
    };
  }, [menuOpen]);

  // The drawer is a sibling of <header>: the header's backdrop-filter would
  // otherwise become the containing block of its position: fixed children.
  return (
    <>
    <header className={`site-header${user ? " site-header-app" : ""}`} data-testid="site-header">
      <div className="container header-inner">
        <Logo />
        <nav className={`nav-desktop${user ? " nav-app" : ""}`} aria-label={th.nav.mainNav}>
          {links.map((l) => (
            <NavEntry key={l.key} item={l} current={isCurrent(location, l)} className="nav-link" />
          ))}
        </nav>
        <div className="header-actions">
          {user ? (
            <>
              <BellButton />
              <UserMenu user={user} onLogout={onLogout} />
            </>
          ) : (
            <div className="auth-buttons">
              <Link to="/login" className="btn btn-ghost btn-sm">
                {th.nav.login}
              </Link>
              <Link to="/signup" className="btn btn-primary btn-sm">
                {th.nav.signup}
              </Link>
            </div>
          )}
          <button
            type="button"
            className="menu-toggle"
            aria-label={menuOpen ? th.nav.closeMenu : th.nav.openMenu}
            aria-expanded={menuOpen}
            aria-controls="mobile-menu"
            onClick={() => setMenuOpen((o) => !o)}
            data-testid="menu-toggle"
          >
            {menuOpen ? <IconClose size={24} /> : <IconMenu size={24} />}
          </button>
        </div>
      </div>
    </header>

      <div className={`mobile-overlay${menuOpen ? " open" : ""}`} onClick={() => setMenuOpen(false)} aria-hidden="true" />
      <div
        id="mobile-menu"
        className={`mobile-menu${menuOpen ? " open" : ""}`}
        role="dialog"
        aria-modal="true"
        aria-label={th.nav.mainNav}
        aria-hidden={!menuOpen}
        inert={!menuOpen}
        data-testid="mobile-menu"
      >
        <div className="mobile-menu-head">
          <Logo onClick={() => setMenuOpen(false)} />
          <button type="button" className="menu-toggle" aria-label={th.nav.closeMenu} onClick={() => setMenuOpen(false)}>
            <IconClose size={24} />
          </button>
        </div>
        {user && (
          <div className="mobile-user">
            <Avatar name={user.name} username={user.username} pictureUrl={user.pictureUrl} size={44} />
            <div>
              <p className="user-menu-title">{user.name || user.username}</p>
              <p className="user-menu-email">{user.email}</p>
            </div>
          </div>
        )}
        <nav className={`mobile-nav${user ? " nav-app" : ""}`} aria-label={th.nav.mainNav}>
          {links.map((l) => (
            <NavEntry key={l.key} item={l} current={isCurrent(location, l)} className="mobile-link" onClick={() => setMenuOpen(false)} />
          ))}
        </nav>
        <div className="mobile-actions">
          {user ? (
            <>
              {/* Settings is in the list above; the drawer ends with leaving. */}
              <button
                type="button"
                className="btn btn-ghost btn-md btn-block danger"
                disabled={loggingOut}
                onClick={() => {
                  setMenuOpen(false);
                  onLogout();
                }}
              >
                <IconLogout size={18} /> {th.nav.logout}
              </button>
            </>
          ) : (
            <>
              <Link to="/signup" className="btn btn-primary btn-md btn-block" onClick={() => setMenuOpen(false)}>
                {th.nav.signup}
              </Link>
              <Link to="/login" className="btn btn-secondary btn-md btn-block" onClick={() => setMenuOpen(false)}>
                {th.nav.login}
              </Link>
            </>
          )}
        </div>
      </div>
    </>
  );
}
