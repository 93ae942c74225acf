import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { formatIsoDateBE, formatNumber } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { IconSearch } from "@/components/ui/icons";
import {
  isInvalidArgument,
  isNotFound,
  isUpgradeRequired,
  useAddWatch,
  useAgency,
  useMarketAccess,
  useRemoveWatch,
  useSupplier,
  useSupplierSearch,
  watchErrorMessage,
} from "../api/market-api";
import { checkTaxId, formatTaxId } from "../lib/tax-id";
import { beYear, fmtBahtShort, fmtPct } from "../lib/view";
import { YearTrend } from "./charts";
import { MarketError, supplierHref, UpgradePrompt, WinnersList } from "./parts";
import { toast } from "@/stores/toast-store";
import "../market.css";

const t = th.market;

function Back({ to = "/market", label = th.titles.market }: { to?: string; label?: string }) {
  return (
    <Link to={to} className="pd-back" data-testid="mk-back">
      ‹ {label}
    </Link>
  );
}

function Tiles({ items }: { items: Array<[label: string, value: ReactNode, testId: string]> }) {
  return (
    <dl className="mk-tiles">
      {items.map(([label, value, testId], i) => (
        <div key={testId} className={`mk-tile${i === 0 ? " mk-tile-main" : ""}`}>
          <dt>{label}</dt>
          <dd data-testid={testId}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function NotFound({ title, lead }: { title: string; lead?: string }) {
  return (
    <div className="state-card" data-testid="mk-not-found">
      <span className="state-icon">
        <IconSearch size={28} />
      </span>
      <h1>{title}</h1>
      {lead && <p className="muted">{lead}</p>}
    </div>
  );
}

/** /market/suppliers?q=: winners by name (Thai-normalised, like search) or by tax id. */
export function SupplierSearchPage() {
  usePageTitle(th.titles.suppliers);
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const access = useMarketAccess();
  const res = useSupplierSearch(q, access.ask.profiles);
  const refused = access.profiles === false || (res.isError && isUpgradeRequired(res.error));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParams(text.trim() ? { q: text.trim() } : {});
  };
  return (
    <div className="mk-page" data-testid="supplier-search-page">
      <Back />
      <header className="search-hero mk-hero">
        <h1>{th.titles.suppliers}</h1>
      </header>
      <form className="card mk-search" role="search" onSubmit={submit}>
        <label htmlFor="mk-supplier-q">{t.supplierSearchLabel}</label>
        <div className="mk-search-row">
          <input
            id="mk-supplier-q"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={t.supplierSearchPlaceholder}
            autoComplete="off"
            data-testid="mk-supplier-q"
          />
          <Button type="submit" icon={<IconSearch size={18} />} data-testid="mk-supplier-submit">
            {th.search.submit}
          </Button>
        </div>
        <p className="field-hint">{t.supplierSearchHint}</p>
      </form>
      {refused ? (
        <UpgradePrompt what="profiles" />
      ) : res.isError ? (
        <MarketError error={res.error} onRetry={() => void res.refetch()} />
      ) : q.trim().length >= 2 && res.data ? (
        res.data.length === 0 ? (
          <p className="state-card muted" data-testid="mk-supplier-empty">
            {t.supplierSearchEmpty}
          </p>
        ) : (
          <ul className="mk-list card" data-testid="mk-supplier-results">
            {res.data.map((s) => (
              <li key={s.taxId ?? `name:${s.name}`} className="mk-list-row" data-testid="mk-supplier-row">
                <div className="mk-list-main">
                  {s.taxId ? (
                    <Link to={supplierHref(s.taxId)} className="mk-winner-name">
                      {s.name}
                    </Link>
                  ) : (
                    <span className="mk-winner-name">{s.name}</span>
                  )}
                  <span className="muted small">{s.taxId ? formatTaxId(s.taxId) : t.noTaxId}</span>
                </div>
                <span className="mk-list-figs">
                  <span>{t.winsN(formatNumber(Number(s.wins)))}</span>
                  <span className="muted">{fmtBahtShort(s.totalBaht)}</span>
                </span>
              </li>
            ))}
          </ul>
        )
      ) : null}
    </div>
  );
}

/** Watch or stop watching a competitor (pro and enterprise; a full list → the server's detail). */
export function WatchButton({ taxId, watched }: { taxId: string; watched: boolean }) {
  const add = useAddWatch();
  const remove = useRemoveWatch();
  const busy = add.isPending || remove.isPending;
  return (
    <div className="mk-watch">
      {watched ? (
        <Button variant="secondary" loading={busy} onClick={() => remove.mutate(taxId)} aria-pressed="true" data-testid="mk-unwatch">
          ★ {t.watching} · {t.unwatch}
        </Button>
      ) : (
        <Button
          loading={busy}
          onClick={() => add.mutate(taxId, { onError: (err) => toast.error(watchErrorMessage(err)) })}
          aria-pressed="false"
          data-testid="mk-watch"
        >
          ☆ {t.watch}
        </Button>
      )}
      <p className="muted small">{t.watchHint}</p>
    </div>
  );
}

/** /market/suppliers/:taxId (pro and enterprise): a winner's record. */
export function SupplierPage() {
  const { taxId: raw = "" } = useParams();
  const check = checkTaxId(raw);
  const taxId = check.ok ? check.id : raw;
  const access = useMarketAccess();
  const q = useSupplier(taxId, check.ok && access.ask.profiles);
  const s = q.data;
  usePageTitle(s?.names[0] ? `${s.names[0]} - ${t.supplier}` : t.supplier);
  const refused = access.profiles === false || (q.isError && isUpgradeRequired(q.error));

  let body: ReactNode;
  if (!check.ok || (q.isError && isInvalidArgument(q.error))) body = <NotFound title={t.badTaxId} lead={raw} />;
  else if (refused) body = <UpgradePrompt what="profiles" />;
  else if (q.isError && isNotFound(q.error)) body = <NotFound title={t.supplierNotFound} lead={t.supplierNotFoundLead(formatTaxId(taxId))} />;
  else if (q.isError) body = <MarketError error={q.error} onRetry={() => void q.refetch()} />;
  else if (!s)
    body = (
      <div className="card mk-loading" aria-busy="true" data-testid="mk-loading">
        <div className="sk sk-block" />
      </div>
    );
  else
    body = (
      <article className="mk-profile" data-testid="supplier-page">
        <header className="card mk-profile-head">
          <span className="chip chip-soft">{t.supplier}</span>
          <h1 data-testid="mk-supplier-name">{s.names[0] ?? formatTaxId(s.taxId)}</h1>
          <p className="muted" data-testid="mk-supplier-taxid">
            {t.taxId} {formatTaxId(s.taxId)}
          </p>
          {s.names.length > 1 && (
            <p className="small">
              <span className="muted">{t.otherNames}: </span>
              {s.names.slice(1).join(" · ")}
            </p>
          )}
          <WatchButton taxId={s.taxId} watched={s.watched} />
        </header>
        <Tiles
          items={[
            [t.wins, formatNumber(Number(s.wins)), "mk-supplier-wins"],
            [t.totalBaht, fmtBahtShort(s.totalBaht), "mk-supplier-total"],
            [t.medianDiscount, fmtPct(s.p50DiscountPct), "mk-supplier-p50"],
          ]}
        />
        <div className="mk-grid">
          <section className="card mk-card" aria-label={t.byYear}>
            <YearTrend rows={s.byBudgetYear.map((y) => ({ year: beYear(y.budgetYear), n: Number(y.wins), p50: y.p50DiscountPct ?? null })).sort((a, b) => a.year - b.year)} />
          </section>
          <section className="card mk-card" aria-labelledby="mk-agencies-h">
            <h2 id="mk-agencies-h">{t.agencies}</h2>
            <ul className="mk-list" data-testid="mk-supplier-agencies">
              {s.agencies.map((a) => (
                <li key={a.deptCode || a.name} className="mk-list-row">
                  <div className="mk-list-main">
                    {a.deptCode ? <Link to={`/market/agencies/${encodeURIComponent(a.deptCode)}`}>{a.name}</Link> : <span>{a.name}</span>}
                  </div>
                  <span className="mk-list-figs">
                    <span>{t.winsN(formatNumber(Number(a.wins)))}</span>
                    <span className="muted">{fmtBahtShort(a.totalBaht)}</span>
                  </span>
                </li>
              ))}
            </ul>
          </section>
        </div>
        <section className="card mk-card" aria-labelledby="mk-recent-h">
          <h2 id="mk-recent-h">{t.recent}</h2>
          <ul className="mk-list" data-testid="mk-supplier-recent">
            {s.recent.map((r) => (
              <li key={r.projectId} className="mk-list-row mk-recent" data-testid="mk-recent-row">
                <div className="mk-list-main">
                  <Link to={`/project-details/${encodeURIComponent(r.projectId)}`}>{r.projectName || r.projectId}</Link>
                  <span className="muted small">
                    {[r.deptName, formatIsoDateBE(r.announceDate)].filter(Boolean).join(" · ")}
                  </span>
                </div>
                <dl className="mk-winner-figs">
                  <div>
                    <dt>{t.agreedPrice}</dt>
                    <dd>{fmtBahtShort(r.agreedPrice)}</dd>
                  </div>
                  <div>
                    <dt>{t.referencePrice}</dt>
                    <dd>{fmtBahtShort(r.referencePrice)}</dd>
                  </div>
                  <div>
                    <dt>{t.discount}</dt>
                    <dd>{fmtPct(r.discountPct)}</dd>
                  </div>
                </dl>
              </li>
            ))}
          </ul>
        </section>
      </article>
    );

  return (
    <div className="mk-page">
      <Back />
      {body}
    </div>
  );
}

/** /market/agencies/:deptCode (pro and enterprise): an agency's spend, methods, suppliers and median discount. */
export function AgencyPage() {
  const { deptCode = "" } = useParams();
  const access = useMarketAccess();
  const q = useAgency(deptCode, !!deptCode && access.ask.profiles);
  const a = q.data;
  usePageTitle(a?.name ? `${a.name} - ${t.agencyPage}` : t.agencyPage);
  const refused = access.profiles === false || (q.isError && isUpgradeRequired(q.error));

  let body: ReactNode;
  if (refused) body = <UpgradePrompt what="profiles" />;
  else if (q.isError && (isNotFound(q.error) || isInvalidArgument(q.error))) body = <NotFound title={t.agencyNotFound} lead={deptCode} />;
  else if (q.isError) body = <MarketError error={q.error} onRetry={() => void q.refetch()} />;
  else if (!a)
    body = (
      <div className="card mk-loading" aria-busy="true" data-testid="mk-loading">
        <div className="sk sk-block" />
      </div>
    );
  else
    body = (
      <article className="mk-profile" data-testid="agency-page">
        <header className="card mk-profile-head">
          <span className="chip chip-soft">{t.agencyPage}</span>
          <h1 data-testid="mk-agency-name">{a.name || a.deptCode}</h1>
          {a.level === "sub_agency" && a.parentName && (
            <p className="muted">
              {a.parentCode ? <Link to={`/market/agencies/${encodeURIComponent(a.parentCode)}`}>{t.subAgencyOf(a.parentName)}</Link> : t.subAgencyOf(a.parentName)}
            </p>
          )}
        </header>
        <Tiles
          items={[
            [t.projects, formatNumber(Number(a.projects)), "mk-agency-projects"],
            [t.totalBaht, fmtBahtShort(a.totalBaht), "mk-agency-total"],
            [t.medianDiscount, fmtPct(a.p50DiscountPct), "mk-agency-p50"],
            [t.n, `${formatNumber(Number(a.n))} · ${t.nWithout} ${formatNumber(Number(a.nWithoutReference))}`, "mk-agency-n"],
          ]}
        />
        <div className="mk-grid">
          <section className="card mk-card" aria-labelledby="mk-spend-h">
            <h2 id="mk-spend-h">{t.spend}</h2>
            <YearTrend rows={a.byBudgetYear.map((y) => ({ year: beYear(y.budgetYear), n: Number(y.projects), p50: y.p50DiscountPct ?? null })).sort((x, y) => x.year - y.year)} />
            <ul className="mk-list" data-testid="mk-agency-years">
              {[...a.byBudgetYear].sort((x, y) => y.budgetYear - x.budgetYear).map((y) => (
                <li key={y.budgetYear} className="mk-list-row">
                  <span>{t.budgetYear(beYear(y.budgetYear))}</span>
                  <span className="mk-list-figs">
                    <span>{t.projectsN(formatNumber(Number(y.projects)))}</span>
                    <span className="muted">{fmtBahtShort(y.totalBaht)}</span>
                  </span>
                </li>
              ))}
            </ul>
          </section>
          <section className="card mk-card" aria-labelledby="mk-methods-h">
            <h2 id="mk-methods-h">{t.methods}</h2>
            <ul className="mk-shares" data-testid="mk-agency-methods">
              {a.methods.map((m) => (
                <li key={m.methodCode || m.methodName}>
                  <div className="mk-share-head">
                    <span>{m.methodName || m.methodCode}</span>
                    <strong>{fmtPct(m.sharePct, true)}</strong>
                  </div>
                  <div className="mk-share-bar" aria-hidden="true">
                    <span style={{ width: `${Math.max(0, Math.min(100, m.sharePct))}%` }} />
                  </div>
                  <span className="muted small">
                    {t.projectsN(formatNumber(Number(m.projects)))} · {fmtBahtShort(m.totalBaht)}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        </div>
        <section className="card mk-card" aria-labelledby="mk-top-h">
          <h2 id="mk-top-h">{t.topSuppliers}</h2>
          <WinnersList
            rows={a.topSuppliers.map((w) => ({ taxId: w.taxId || undefined, name: w.name, wins: Number(w.wins), totalBaht: w.totalBaht, p50DiscountPct: w.p50DiscountPct }))}
          />
        </section>
      </article>
    );

  return (
    <div className="mk-page">
      <Back />
      {body}
    </div>
  );
}
