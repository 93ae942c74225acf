import { Fragment, type ReactNode } from "react";
import { Link } from "react-router";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { Announcement, ProjectDetail } from "@/gen/projects/v1/projects_pb";
import { th } from "@/i18n/th";
import { bahtOf, formatIsoDateBE, formatMoney, formatPercent, formatThaiDate, savingPercent } from "@/lib/format";
import { errorMessage } from "@/lib/errors";
import { toast } from "@/stores/toast-store";
import { downloadOcds, ocdsUrl } from "../api/projects-api";
import { StatusBadge } from "@/components/ui/status-badge";
import { Deadlines } from "@/components/ui/deadlines";

const t = th.projectDetails;

/**
 * A button label that may wrap only at its spaces: one wider than a phone
 * would otherwise push the page sideways (buttons do not wrap), and the Thai
 * line breaker, left to itself, splits loanwords such as แพ็กเกจ. Put it in
 * one span inside the button: as the button's own flex items the groups
 * would never wrap.
 */
function SpacedLabel({ text }: { text: string }) {
  return text.split(" ").map((w, i) => (
    // The space stays outside the group: it is where the line may break.
    <Fragment key={i}>
      {i > 0 && " "}
      <span className="nobr">{w}</span>
    </Fragment>
  ));
}

function Field({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="pd-field" data-testid={testId}>
      <dt>{label}</dt>
      <dd>{children === "" || children === null || children === undefined ? "–" : children}</dd>
    </div>
  );
}

/** Announcement steps oldest first, so the story reads top to bottom and the newest is last. */
export function sortedSteps(steps: readonly Announcement[]): Announcement[] {
  return steps
    .map((a, i) => ({ a, i }))
    .sort((x, y) => (x.a.date || "").localeCompare(y.a.date || "") || x.i - y.i)
    .map((x) => x.a);
}

function tsDate(ts: Timestamp | undefined): string {
  if (!ts || (ts.seconds === 0n && ts.nanos === 0)) return "";
  return formatThaiDate(timestampDate(ts), true);
}

function PriceBar({ label, amount, max, tone, testId }: { label: string; amount: number | undefined; max: number; tone: string; testId: string }) {
  const has = amount !== undefined && amount > 0;
  return (
    <div className={`pd-price pd-price-${tone}`} data-testid={testId}>
      <div className="pd-price-head">
        <span>{label}</span>
        <strong>{has ? formatMoney(amount) : "–"}</strong>
      </div>
      <div className="pd-bar" aria-hidden="true">
        <span style={{ width: has && max > 0 ? `${Math.max(2, (amount / max) * 100)}%` : "0%" }} />
      </div>
    </div>
  );
}

/** Everything about one project (docs/product.md#project), read-only. */
export function ProjectView({ project, sample = false, ocdsInPlan }: { project: ProjectDetail; sample?: boolean; ocdsInPlan?: boolean }) {
  const s = project.summary!;
  const budget = bahtOf(s.budgetSatang, s.budget);
  const referencePrice = bahtOf(s.referencePriceSatang, s.referencePrice);
  const agreedPrice = bahtOf(s.agreedPriceSatang, s.agreedPrice);
  const max = Math.max(budget ?? 0, referencePrice ?? 0, agreedPrice ?? 0);
  const vsRef = savingPercent(referencePrice, agreedPrice);
  const vsBudget = savingPercent(budget, agreedPrice);
  const place = [project.subdistrict, project.district, s.provinceName].filter(Boolean).join(" · ");
  const steps = sortedSteps(project.announcements);
  const latest = steps.length - 1;

  return (
    <article className="pd" data-testid="project-details">
      <header className="pd-header card">
        <div className="pd-badges">
          <StatusBadge status={s.status} label={s.statusName} />
          <span className="chip" data-testid="pd-id">
            {t.projectId} {s.projectId}
          </span>
          {s.budgetYear > 0 && <span className="chip chip-soft">{`${t.budgetYear} ${s.budgetYear}`}</span>}
          {project.source === "demo" && (
            <span className="chip chip-soft" data-testid="pd-demo">
              {th.demoChip}
            </span>
          )}
        </div>
        <h1 className="pd-title" data-testid="pd-name">
          {s.projectName}
        </h1>
        <p className="pd-agency">{[s.deptName, s.deptSubName].filter(Boolean).join(" · ")}</p>
        {(s.submissionDue || s.hearingDue) && (
          <div className="pd-deadlines" data-testid="pd-deadlines">
            <Deadlines submissionDue={s.submissionDue} hearingDue={s.hearingDue} />
          </div>
        )}
        <div className="pd-actions">
          {s.egpUrl && (
            <a className="btn btn-primary btn-md" href={s.egpUrl} target="_blank" rel="noopener noreferrer" data-testid="pd-egp">
              {t.egp} ↗
            </a>
          )}
          {ocdsInPlan === false ? (
            // The export is not in the user's plan (the tier table's ocds_export): the way to the plans that have it.
            <Link className="btn btn-secondary btn-md pd-action-wrap" to="/user-settings/pricing" data-testid="pd-ocds-upgrade">
              <span>
                <SpacedLabel text={t.ocdsUpgrade} />
              </span>
            </Link>
          ) : (
          <a
            className="btn btn-secondary btn-md"
            href={ocdsUrl(s.projectId)}
            target="_blank"
            rel="noopener noreferrer"
            data-testid="pd-ocds"
            onClick={(e) => {
              if (!sample) {
                e.preventDefault();
                downloadOcds(s.projectId).catch((err) => toast.error(errorMessage(err, "Failed to fetch data")));
              }
            }}
          >
            {t.ocds}
          </a>
          )}
        </div>
      </header>

      <div className="pd-grid">
        <div className="pd-main">
          <section className="card pd-section" aria-labelledby="pd-overview">
            <h2 id="pd-overview">{t.overview}</h2>
            <dl className="pd-fields">
              <Field label={t.agency} testId="pd-agency">{s.deptName}</Field>
              <Field label={t.subAgency}>{s.deptSubName}</Field>
              <Field label={t.ministry}>{s.ministryName}</Field>
              <Field label={t.province}>{place}</Field>
              <Field label={t.method}>{s.methodName}</Field>
              <Field label={t.category}>{s.typeName}</Field>
              {s.hearingDue && <Field label={t.hearingDue} testId="pd-hearing-due">{formatIsoDateBE(s.hearingDue, true)}</Field>}
              {s.submissionDue && <Field label={t.submissionDue} testId="pd-submission-due">{formatIsoDateBE(s.submissionDue, true)}</Field>}
              <Field label={t.budgetYear} testId="pd-budget-year">{s.budgetYear > 0 ? `พ.ศ. ${s.budgetYear}` : ""}</Field>
              <Field label={t.status}>
                <StatusBadge status={s.status} label={s.statusName} />
                {project.rawStatus && project.rawStatus !== s.statusName && <span className="muted small"> ({project.rawStatus})</span>}
              </Field>
            </dl>
            {project.description && (
              <>
                <h3 className="pd-sub">{t.description}</h3>
                <p className="pd-description">{project.description}</p>
              </>
            )}
          </section>

          <section className="card pd-section" aria-labelledby="pd-timeline">
            <div className="pd-section-head">
              <h2 id="pd-timeline">{t.timeline}</h2>
              <span className="muted small">{t.timelineOrder}</span>
            </div>
            {steps.length === 0 ? (
              <p className="muted">{t.timelineEmpty}</p>
            ) : (
              <ol className="timeline" data-testid="pd-timeline">
                {steps.map((a, i) => (
                  <li key={`${a.typeCode}-${a.date}-${i}`} className={`tl-item${i === latest ? " tl-latest" : ""}`} data-testid="pd-step">
                    <span className="tl-dot" aria-hidden="true" />
                    <div className="tl-body">
                      <div className="tl-head">
                        <span className="step-code">{a.typeCode}</span>
                        <strong>{a.typeName || t.announceTypes[a.typeCode] || a.typeCode}</strong>
                        {i === latest && <span className="tl-latest-badge">{t.latest}</span>}
                      </div>
                      <div className="tl-meta">
                        {a.date && <time dateTime={a.date}>{formatIsoDateBE(a.date, true)}</time>}
                        {a.link && (
                          <a href={a.link} target="_blank" rel="noopener noreferrer">
                            {t.openDocument} ↗
                          </a>
                        )}
                      </div>
                    </div>
                  </li>
                ))}
              </ol>
            )}
          </section>
        </div>

        <aside className="pd-side">
          <section className="card pd-section" aria-labelledby="pd-prices">
            <h2 id="pd-prices">{t.prices}</h2>
            <PriceBar label={t.budget} amount={budget} max={max} tone="budget" testId="pd-budget" />
            <PriceBar label={t.referencePrice} amount={referencePrice} max={max} tone="ref" testId="pd-ref" />
            <PriceBar label={t.agreedPrice} amount={agreedPrice} max={max} tone="agreed" testId="pd-agreed" />
            {(vsRef !== null || vsBudget !== null) && (
              <div className="pd-saving" data-testid="pd-saving">
                {vsRef !== null && (
                  <p className={vsRef >= 0 ? "saving-good" : "saving-bad"}>
                    {vsRef >= 0 ? t.savingVsReference(formatPercent(vsRef)) : t.overReference(formatPercent(-vsRef))}
                  </p>
                )}
                {vsBudget !== null && vsBudget >= 0 && <p className="muted small">{t.savingVsBudget(formatPercent(vsBudget))}</p>}
              </div>
            )}
          </section>

          <section className="card pd-section" aria-labelledby="pd-winner">
            <h2 id="pd-winner">{t.winner}</h2>
            {!s.winnerName && project.contracts.length === 0 ? (
              <p className="muted">{t.noWinner}</p>
            ) : (
              <dl className="pd-fields pd-fields-1">
                {s.winnerName && <Field label={t.winnerName} testId="pd-winner-name">{s.winnerName}</Field>}
                {project.contracts.map((c, i) => (
                  <div key={`${c.contractNo}-${i}`} className="pd-contract">
                    {c.winnerName && c.winnerName !== s.winnerName && <Field label={t.winnerName}>{c.winnerName}</Field>}
                    {c.winnerTaxId && (
                      <Field label={t.taxId}>
                        {c.winnerTaxId}
                        {c.winnerTaxIdSuspect && <span className="pd-warn"> ⚠ {t.taxIdSuspect}</span>}
                      </Field>
                    )}
                    <Field label={t.contractNo}>{c.contractNo}</Field>
                    <Field label={t.contractDate}>{formatIsoDateBE(c.contractDate)}</Field>
                    <Field label={t.contractEnd}>{formatIsoDateBE(c.endDate)}</Field>
                    <Field label={t.contractPrice}>{c.contractPrice > 0 || c.contractPriceSatang > 0n ? formatMoney(bahtOf(c.contractPriceSatang || undefined, c.contractPrice)) : ""}</Field>
                    {c.contractStatus && <Field label={t.contractStatus}>{c.contractStatus}</Field>}
                  </div>
                ))}
              </dl>
            )}
          </section>

          <section className="card pd-section pd-meta" aria-label={t.source}>
            <dl className="pd-fields pd-fields-1">
              {project.source && <Field label={t.source}>{th.projectSources[project.source] ?? project.source}</Field>}
              {tsDate(project.firstSeenAt) && <Field label={t.firstSeen}>{tsDate(project.firstSeenAt)}</Field>}
              {tsDate(project.updatedAt) && <Field label={t.lastUpdated}>{tsDate(project.updatedAt)}</Field>}
            </dl>
          </section>
        </aside>
      </div>
    </article>
  );
}
