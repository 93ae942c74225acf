import { Link } from "react-router";
import { usePageTitle } from "@/hooks/use-page-title";
import { th } from "@/i18n/th";
import { AppShell } from "./layouts/app-shell";

function LostRadar() {
  return (
    <svg className="nf-image" viewBox="0 0 320 220" role="img" aria-label="404">
      <defs>
        <radialGradient id="nf-g" cx="50%" cy="50%" r="50%">
          <stop offset="0%" stopColor="#22c1a5" stopOpacity="0.35" />
          <stop offset="100%" stopColor="#22c1a5" stopOpacity="0" />
        </radialGradient>
      </defs>
      <circle cx="160" cy="110" r="100" fill="url(#nf-g)" />
      <circle cx="160" cy="110" r="96" fill="none" stroke="#c7d4f0" strokeWidth="2" />
      <circle cx="160" cy="110" r="64" fill="none" stroke="#c7d4f0" strokeWidth="2" strokeDasharray="6 6" />
      <circle cx="160" cy="110" r="32" fill="none" stroke="#c7d4f0" strokeWidth="2" />
      <path d="M160 110 L236 60" stroke="#1746a2" strokeWidth="4" strokeLinecap="round" />
      <circle cx="160" cy="110" r="6" fill="#1746a2" />
      <text x="160" y="125" textAnchor="middle" fontSize="64" fontWeight="800" fill="#1746a2" opacity="0.15">
        404
      </text>
      <circle cx="250" cy="150" r="7" fill="#f59e0b" />
      <circle cx="92" cy="64" r="5" fill="#94a3b8" />
    </svg>
  );
}

/** docs/product.md#not-found: any other path — title 'ไม่พบหน้าที่ค้นหา - 404 Not Found', header, image, footer. */
export function NotFoundPage() {
  usePageTitle(th.titles.notFound, true);
  return (
    <AppShell>
      <section className="not-found" data-testid="not-found">
        <LostRadar />
        <p className="nf-code">404</p>
        <h1>{th.pages.notFoundTitle}</h1>
        <p className="lead">{th.pages.notFoundLead}</p>
        <div className="hero-ctas center">
          <Link to="/" className="btn btn-primary btn-md">
            {th.common.backHome}
          </Link>
          <Link to="/search" className="btn btn-secondary btn-md">
            {th.pages.notFoundSearch}
          </Link>
        </div>
      </section>
    </AppShell>
  );
}
