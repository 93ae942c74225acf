import { Link } from "react-router";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { th } from "@/i18n/th";
import { bahtOf, formatBaht, formatIsoDateBE, formatNumber, formatThaiDate } from "@/lib/format";
import { TierCard, useTiers } from "@/features/home";
import { useSavedCriteria } from "@/features/search";
import { useMySubscription, usePayments } from "../api/payment-api";
import { BillingProfileSection, LifecycleRule, RenewalPanel } from "./billing-sections";
import "../payment.css";

const t = th.payment;
const s = th.paymentSettings;

/** /user-settings/pricing: every tier, the current one marked, upgrade buttons. */
export function PricingSettings() {
  const tiers = useTiers();
  const mine = useMySubscription();
  const current = mine.data?.tier ?? "free";
  return (
    <div className="tiers settings-tiers" data-testid="settings-pricing">
      {(tiers.data ?? []).map((x) => (
        <TierCard key={x.tier} tier={x} current={x.tier === current} />
      ))}
    </div>
  );
}

function used(n: number, limit: number | undefined) {
  if (limit === undefined) return formatNumber(n);
  if (limit < 0) return `${formatNumber(n)} / ${th.common.unlimited}`;
  return `${formatNumber(n)} / ${formatNumber(limit)}`;
}

/** /user-settings/account-status: plan, dates and usage against each limit. */
export function AccountStatusSettings() {
  const q = useMySubscription();
  // The searches held are counted from the saved list (the projects service holds them).
  const saved = useSavedCriteria();
  const d = q.data;
  if (!d) return <p className="muted">…</p>;
  const l = d.combinationLimits;
  const u = d.usage;
  const types = saved.data?.criteria.map((c) => c.searchType);
  const held = (overnight: boolean) => (types ? types.filter((x) => (x === "overnight") === overnight).length : undefined);
  const heldRow = (label: string, n: number | undefined, limit: number | undefined): [string, string] => [label, n === undefined ? "…" : used(n, limit)];
  const rows: Array<[string, string]> = [
    [s.usageSearchToday, used(u?.searchCombinationToday ?? 0, l?.searchCombination)],
    [s.usageSearchMonth, used(u?.searchCombinationMonth ?? 0, l?.searchCombinationMonth)],
    heldRow(s.usageNormal, held(false), l?.normalSearchSave),
    heldRow(s.usageOvernight, held(true), l?.overnightSearchSave),
    [s.usageLiveToday, used(u?.exploreLiveSearchToday ?? 0, l?.exploreLiveSearch)],
  ];
  const sub = d.subscription;
  return (
    <div data-testid="settings-account-status">
      <dl className="payment-order">
        <dt>{t.plan}</dt>
        <dd data-testid="status-tier">{d.tierLabel}</dd>
        {sub && sub.status !== "none" && (
          <>
            <dt>{s.start}</dt>
            <dd>{formatIsoDateBE(sub.startDate)}</dd>
            <dt>{s.end}</dt>
            <dd>{sub.endDate ? formatIsoDateBE(sub.endDate) : "–"}</dd>
            <dt>{s.daysLeft}</dt>
            <dd data-testid="status-days">{formatNumber(d.daysRemaining)}</dd>
            {sub.status === "active" && sub.endDate && (
              <>
                <dt>{th.billing.renewalTitle}</dt>
                <dd data-testid="status-renewal">
                  {sub.method !== "card"
                    ? th.billing.passEnds(formatIsoDateBE(sub.endDate))
                    : sub.cancelAtPeriodEnd
                      ? th.billing.cancelled(formatIsoDateBE(sub.endDate))
                      : th.billing.autoRenewOn(formatIsoDateBE(sub.endDate))}
                </dd>
              </>
            )}
            {sub.next && (
              <>
                <dt>{th.billing.nextTitle}</dt>
                <dd data-testid="status-next">
                  {th.billing.nextPlan(sub.next.tierLabel, formatIsoDateBE(sub.next.startDate), formatIsoDateBE(sub.next.endDate))}
                </dd>
              </>
            )}
            {sub.lastPaymentDate && (
              <>
                <dt>{s.lastPayment}</dt>
                <dd>
                  {formatIsoDateBE(sub.lastPaymentDate)} · {formatBaht(sub.lastPaymentAmount ?? 0)}
                </dd>
              </>
            )}
          </>
        )}
      </dl>
      <h2 className="settings-subtitle">{s.usage}</h2>
      <table className="usage-table">
        <tbody>
          {rows.map(([k, v]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td>{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {d.tier !== "enterprise" && (
        <Link to="/user-settings/pricing" className="btn btn-primary btn-md">
          {s.upgrade}
        </Link>
      )}
    </div>
  );
}

/** /user-settings/payment-settings: renewal (cancel / resume), the billing
 * profile for receipts, and the payment history linking to each receipt. */
export function PaymentSettings() {
  const q = usePayments();
  const tiers = useTiers();
  const list = q.data?.payments ?? [];
  const label = (tier: string) => tiers.data?.find((x) => x.tier === tier)?.label ?? tier;
  return (
    <div data-testid="settings-payments">
      <RenewalPanel />
      <LifecycleRule />
      <BillingProfileSection />
      <h2 className="settings-subtitle">{s.history}</h2>
      {list.length === 0 ? (
        <p className="muted">{q.isPending ? "…" : s.noPayments}</p>
      ) : (
        // On a phone each payment is a card of labelled lines (the headings hide): five columns
        // do not fit 360 px, and a table scrolled sideways hides the receipt link.
        <table className="usage-table payment-history" data-testid="payment-history">
          <thead>
            <tr>
              <th scope="col">{s.date}</th>
              <th scope="col">{t.plan}</th>
              <th scope="col">{t.total}</th>
              <th scope="col">{s.status}</th>
              <th scope="col">{s.receipt}</th>
            </tr>
          </thead>
          <tbody>
            {list.map((p) => (
              <tr key={p.paymentId} data-testid="payment-row">
                <td data-label={s.date}>{p.createdAt ? formatThaiDate(timestampDate(p.createdAt)) : "–"}</td>
                <td data-label={t.plan}>
                  {label(p.tier)} · {p.period === "yearly" ? t.yearly : t.monthly}
                </td>
                <td data-label={t.total}>{formatBaht(bahtOf(p.amountSatang, p.amount) ?? 0)}</td>
                <td data-label={s.status}>{p.status === "succeeded" ? t.statusPaid : t.statusFailed}</td>
                <td data-label={s.receipt}>
                  {p.receiptNumber ? (
                    <span className="payment-receipts">
                      <Link to={`/receipt/${encodeURIComponent(p.receiptNumber)}`} data-testid="receipt-link" aria-label={`${th.billing.viewReceipt} ${p.receiptNumber}`}>
                        {s.receiptNo(p.receiptNumber)}
                      </Link>
                      {p.replacementNumber && (
                        <Link
                          to={`/receipt/${encodeURIComponent(p.replacementNumber)}`}
                          data-testid="replacement-link"
                          aria-label={`${th.billing.viewReceipt} ${p.replacementNumber}`}
                        >
                          {s.replacementNo(p.replacementNumber)}
                        </Link>
                      )}
                    </span>
                  ) : (
                    "–"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Link to="/payment" className="btn btn-primary btn-md">
        {s.buy}
      </Link>
    </div>
  );
}
