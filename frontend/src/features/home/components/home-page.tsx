import { Link } from "react-router";
import { usePageTitle } from "@/hooks/use-page-title";
import { formatBaht, formatThaiDate } from "@/lib/format";
import { th } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { IconArrowRight, IconBell, IconCalc, IconFilter, IconFlag, IconMoon, IconRadar, IconSearch } from "@/components/ui/icons";
import { PricingSection } from "./pricing-section";

const FEATURE_ICONS = { search: IconSearch, filter: IconFilter, moon: IconMoon, flag: IconFlag, calc: IconCalc, bell: IconBell } as const;

function HeroPreview() {
  const h = th.home;
  return (
    <div className="hero-preview" aria-hidden="true">
      <div className="preview-head">
        <span className="preview-dot" />
        <span>{h.previewTitle}</span>
        <span className="preview-badge">{h.previewBadge}</span>
      </div>
      <ul>
        {h.previewItems.map((p) => (
          <li key={p.name} className="preview-item">
            <p className="preview-name">{p.name}</p>
            <p className="preview-agency">{p.agency}</p>
            <div className="preview-meta">
              <span className="chip">{p.method}</span>
              <span className="chip chip-soft">{p.status}</span>
              <span className="preview-budget">{formatBaht(p.budget)}</span>
              <span className="preview-date">{formatThaiDate(p.date)}</span>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function HomePage() {
  usePageTitle(th.titles.home);
  const user = useAuthStore((s) => s.user);
  const h = th.home;
  return (
    <>
      <section className="hero">
        <div className="container hero-inner">
          <div className="hero-copy">
            <p className="eyebrow">
              <IconRadar size={16} /> {h.eyebrow}
            </p>
            <h1>{h.heroTitle}</h1>
            <p className="hero-lead">{h.heroLead}</p>
            <div className="hero-ctas">
              <Link to={user ? "/search" : "/signup"} className="btn btn-primary btn-lg">
                {user ? th.nav.search : h.ctaPrimary} <IconArrowRight size={18} />
              </Link>
              <Link to="/search" className="btn btn-secondary btn-lg">
                {h.ctaSecondary}
              </Link>
            </div>
            <p className="hero-note">{h.heroNote}</p>
          </div>
          <HeroPreview />
        </div>
        <div className="container stats">
          {h.stats.map((s) => (
            <div key={s.label} className="stat">
              <strong>{s.value}</strong>
              <span>{s.label}</span>
            </div>
          ))}
        </div>
      </section>

      <section id="features" className="section" aria-labelledby="features-title">
        <div className="container">
          <header className="section-head">
            <h2 id="features-title">{h.featuresTitle}</h2>
            <p>{h.featuresLead}</p>
          </header>
          <div className="features">
            {h.features.map((f) => {
              const Icon = FEATURE_ICONS[f.icon];
              return (
                <article key={f.title} className="feature">
                  <span className="feature-icon">
                    <Icon size={22} />
                  </span>
                  <h3>{f.title}</h3>
                  <p>{f.text}</p>
                </article>
              );
            })}
          </div>
          <div className="steps">
            <h3>{h.stepsTitle}</h3>
            <ol>
              {h.steps.map((s, i) => (
                <li key={s.title}>
                  <span className="step-no">{i + 1}</span>
                  <div>
                    <strong>{s.title}</strong>
                    <p>{s.text}</p>
                  </div>
                </li>
              ))}
            </ol>
          </div>
        </div>
      </section>

      <PricingSection />

      <section id="faq" className="section" aria-labelledby="faq-title">
        <div className="container container-narrow">
          <header className="section-head">
            <h2 id="faq-title">{h.faqTitle}</h2>
          </header>
          <div className="faq">
            {h.faq.map((f) => (
              <details key={f.q}>
                <summary>{f.q}</summary>
                <p>{f.a}</p>
              </details>
            ))}
          </div>
        </div>
      </section>

      <section className="cta-band">
        <div className="container cta-inner">
          <div>
            <h2>{h.ctaTitle}</h2>
            <p>{h.ctaLead}</p>
          </div>
          <Link to={user ? "/search" : "/signup"} className="btn btn-light btn-lg">
            {user ? th.nav.search : h.ctaPrimary}
          </Link>
        </div>
      </section>
    </>
  );
}
