import { Link } from "react-router";
import { usePageTitle } from "@/hooks/use-page-title";
import { th } from "@/i18n/th";
import "../legal.css";

type Section = { heading: string; paragraphs?: readonly string[]; items?: readonly string[] };
type Doc = { title: string; lead: string; sections: readonly Section[] };

const PAGES = [
  { to: "/about", doc: th.legal.about },
  { to: "/privacy", doc: th.legal.privacy },
  { to: "/terms", doc: th.legal.terms },
] as const;

/** One of the footer's pages: a title, a lead and numbered sections. */
function LegalPage({ doc, testId }: { doc: Doc; testId: string }) {
  usePageTitle(doc.title);
  return (
    <article className="container legal" data-testid={testId}>
      <header className="legal-head">
        <h1>{doc.title}</h1>
        <p className="lead">{doc.lead}</p>
        <p className="muted legal-updated">{th.legal.updated}</p>
      </header>
      {doc.sections.map((s) => (
        <section key={s.heading} className="legal-section">
          <h2>{s.heading}</h2>
          {s.items && (
            <ul>
              {s.items.map((i) => (
                <li key={i}>{i}</li>
              ))}
            </ul>
          )}
          {s.paragraphs?.map((p) => <p key={p}>{p}</p>)}
        </section>
      ))}
      <nav className="legal-other" aria-label={th.legal.otherPages}>
        {PAGES.filter((p) => p.doc !== doc).map((p) => (
          <Link key={p.to} to={p.to}>
            {p.doc.title}
          </Link>
        ))}
      </nav>
    </article>
  );
}

export function AboutPage() {
  return <LegalPage doc={th.legal.about} testId="about-page" />;
}

export function PrivacyPage() {
  return <LegalPage doc={th.legal.privacy} testId="privacy-page" />;
}

export function TermsPage() {
  return <LegalPage doc={th.legal.terms} testId="terms-page" />;
}
