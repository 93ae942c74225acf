import { th } from "@/i18n/th";
import { Brand } from "./logo";

/**
 * The start-up / loading skeleton (docs/product.md#start-up: shown while the session is
 * restored; /test). The brand is real: it is the first paint. index.html
 * carries the same markup, so a slow network paints it before any script
 * (skeleton.test.tsx keeps the two equal).
 */
export function PageSkeleton({ bodyOnly = false }: { bodyOnly?: boolean }) {
  return (
    <div className="skeleton-page" role="status" aria-live="polite" aria-busy="true" data-testid="page-skeleton">
      <span className="sr-only">{th.skeleton.label}</span>
      {!bodyOnly && <div className="skeleton-header">
        <div className="logo">
          <Brand />
        </div>
        <div className="sk-row">
          <div className="sk sk-pill" />
          <div className="sk sk-pill" />
          <div className="sk sk-pill" />
        </div>
        <div className="sk sk-button" />
      </div>}
      <div className="skeleton-body">
        <div className="sk sk-title" />
        <div className="sk sk-line" />
        <div className="sk sk-line short" />
        <div className="skeleton-cards">
          {[0, 1, 2].map((i) => (
            <div key={i} className="skeleton-card">
              <div className="sk sk-line" />
              <div className="sk sk-line short" />
              <div className="sk sk-block" />
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

export function InlineSpinner({ label = th.common.loading }: { label?: string }) {
  return (
    <div className="inline-spinner" role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}
