import { useEffect, type ReactNode } from "react";
import { useLocation } from "react-router";
import { Header } from "@/components/layout/header";
import { Footer } from "@/components/layout/footer";
import { th } from "@/i18n/th";
import { useLogout } from "@/features/auth/hooks/use-logout";

/** Scroll to #features / #pricing / #faq after navigation, else to the top. */
function useScrollOnNavigate() {
  const { pathname, hash } = useLocation();
  useEffect(() => {
    if (hash) {
      const id = decodeURIComponent(hash.slice(1));
      // The section may mount a moment later (lazy route).
      let tries = 0;
      const tick = () => {
        const el = document.getElementById(id);
        if (el) el.scrollIntoView({ behavior: "smooth", block: "start" });
        else if (tries++ < 20) setTimeout(tick, 50);
      };
      tick();
    } else {
      window.scrollTo(0, 0);
    }
  }, [pathname, hash]);
}

/** Sticky header, the page, the footer. */
export function AppShell({ children, className }: { children: ReactNode; className?: string }) {
  const logout = useLogout();
  useScrollOnNavigate();
  return (
    <div className="app">
      <a href="#main" className="skip-link">
        {th.common.skipToContent}
      </a>
      <Header onLogout={() => logout.mutate()} loggingOut={logout.isPending} />
      <main id="main" className={className ?? "main"}>
        {children}
      </main>
      <Footer />
    </div>
  );
}
