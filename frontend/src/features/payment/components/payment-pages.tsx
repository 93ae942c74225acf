import { useMemo, useState } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { formatBaht, formatIsoDateBE } from "@/lib/format";
import { useTiers } from "@/features/home";
import { useBillingProfile, useCheckout, useCompleteLocal, useLocalCheckout, useMySubscription } from "../api/payment-api";
import { profileForm, toProfileInput, validateProfile, type ProfileErrors, type ProfileForm } from "../lib/billing-profile";
import { BuyerFields, LifecycleRule } from "./billing-sections";
import "../payment.css";

const t = th.payment;
const b = th.billing;
type Period = "monthly" | "yearly";
type Method = "card" | "promptpay";
type Invoice = "receipt" | "tax";

function newKey() {
  return typeof crypto !== "undefined" && "randomUUID" in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
}

/** /payment (login required): choose the plan, the period and how to pay. */
export function PaymentPage() {
  usePageTitle(th.titles.payment);
  const [params] = useSearchParams();
  const tiers = useTiers();
  const mine = useMySubscription();
  const paid = (tiers.data ?? []).filter((x) => x.price > 0);
  const [tier, setTier] = useState(params.get("tier") ?? "pro");
  const [period, setPeriod] = useState<Period>("monthly");
  const [method, setMethod] = useState<Method>("card");
  // One key per choice: clicking twice makes one session, a new choice a new one.
  const key = useMemo(() => `${tier}-${period}-${method}-${newKey()}`, [tier, period, method]);
  const checkout = useCheckout();
  const navigate = useNavigate();
  const profile = useBillingProfile();
  // Who the tax invoice names: asked here, before paying. Until the payer chooses, a saved
  // billing profile means a tax invoice to it, none a plain receipt.
  const [invoice, setInvoice] = useState<Invoice | null>(null);
  const [buyer, setBuyer] = useState<ProfileForm | null>(null);
  const [buyerErrors, setBuyerErrors] = useState<ProfileErrors>({});
  const chosenInvoice: Invoice = invoice ?? (profile.data?.exists ? "tax" : "receipt");
  const buyerForm = buyer ?? profileForm(profile.data);
  const chosen = paid.find((x) => x.tier === tier) ?? paid[0];
  const amount = chosen ? (period === "yearly" ? chosen.priceYearly : chosen.price) : 0;

  const pay = async () => {
    if (!chosen) return;
    const errs = chosenInvoice === "tax" ? validateProfile(buyerForm) : {};
    setBuyerErrors(errs);
    if (Object.keys(errs).length > 0) return;
    const who = chosenInvoice === "tax" ? { buyer: toProfileInput(buyerForm) } : { receiptOnly: true };
    const r = await checkout.mutateAsync({ tier: chosen.tier, period, method, key, ...who });
    if (r.checkoutUrl.startsWith("/")) void navigate(r.checkoutUrl);
    else window.location.assign(r.checkoutUrl);
  };

  return (
    <section className="container payment-page" data-testid="payment-page">
      <h1>{th.titles.payment}</h1>
      <p className="muted">{th.pages.paymentLead}</p>
      {mine.data && mine.data.tier !== "free" && (
        <p className="payment-current" data-testid="payment-current">
          {t.currentUntil(mine.data.tierLabel, formatIsoDateBE(mine.data.subscription?.endDate ?? ""))}
        </p>
      )}
      <fieldset className="payment-choice">
        <legend>{t.chooseTier}</legend>
        <div className="payment-options">
          {paid.map((x) => (
            <label key={x.tier} className={`payment-option${chosen?.tier === x.tier ? " selected" : ""}`}>
              <input type="radio" name="tier" value={x.tier} checked={chosen?.tier === x.tier} onChange={() => setTier(x.tier)} data-testid={`pay-tier-${x.tier}`} />
              <span className="payment-option-title">{x.label}</span>
              <span>{t.perMonth(formatBaht(x.price))}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="payment-choice">
        <legend>{t.choosePeriod}</legend>
        <div className="payment-options">
          {(["monthly", "yearly"] as const).map((p) => (
            <label key={p} className={`payment-option${period === p ? " selected" : ""}`}>
              <input type="radio" name="period" value={p} checked={period === p} onChange={() => setPeriod(p)} data-testid={`pay-period-${p}`} />
              <span className="payment-option-title">{p === "monthly" ? t.monthly : t.yearly}</span>
              <span>{p === "monthly" ? t.monthlyNote : t.yearlyNote}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="payment-choice">
        <legend>{t.chooseMethod}</legend>
        <div className="payment-options">
          {(["card", "promptpay"] as const).map((m) => (
            <label key={m} className={`payment-option${method === m ? " selected" : ""}`}>
              <input type="radio" name="method" value={m} checked={method === m} onChange={() => setMethod(m)} data-testid={`pay-method-${m}`} />
              <span className="payment-option-title">{m === "card" ? t.card : t.promptpay}</span>
              <span>{m === "card" ? t.cardNote : t.promptpayNote}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="payment-choice" data-testid="pay-invoice">
        <legend>{b.invoiceTitle}</legend>
        <p className="muted">{b.invoiceLead}</p>
        <div className="payment-options">
          {(["receipt", "tax"] as const).map((k) => (
            <label key={k} className={`payment-option${chosenInvoice === k ? " selected" : ""}`}>
              <input type="radio" name="invoice" value={k} checked={chosenInvoice === k} onChange={() => setInvoice(k)} data-testid={`pay-invoice-${k}`} />
              <span className="payment-option-title">{k === "tax" ? b.invoiceTax : b.invoiceReceipt}</span>
              <span>{k === "tax" ? b.invoiceTaxNote : b.invoiceReceiptNote}</span>
            </label>
          ))}
        </div>
        {chosenInvoice === "tax" && !profile.isPending && (
          <div className="billing-box billing-form" data-testid="pay-buyer">
            <BuyerFields value={buyerForm} onChange={setBuyer} errors={buyerErrors} />
          </div>
        )}
      </fieldset>
      {mine.data && chosen && <ChangeEffect current={mine.data} chosen={chosen} tiers={paid} />}
      <LifecycleRule />
      <div className="payment-summary">
        <p>
          {t.total}: <strong data-testid="pay-amount">{formatBaht(amount)}</strong> <span className="muted">{t.vatIncluded}</span>
        </p>
        <button type="button" className="btn btn-primary btn-lg" disabled={!chosen || checkout.isPending} onClick={() => void pay()} data-testid="pay-submit">
          {t.pay}
        </button>
      </div>
    </section>
  );
}

type Mine = NonNullable<ReturnType<typeof useMySubscription>["data"]>;
type TierOption = { tier: string; label: string; rank: number };

/** What buying the chosen plan does to the plan in force (the lifecycle rule). */
function ChangeEffect({ current, chosen, tiers }: { current: Mine; chosen: TierOption; tiers: TierOption[] }) {
  const sub = current.subscription;
  if (current.tier === "free" || !sub || sub.status !== "active" || !sub.endDate) return null;
  const rank = tiers.find((x) => x.tier === current.tier)?.rank ?? 0;
  let text: string;
  if (chosen.tier === current.tier) text = b.effectExtend(formatIsoDateBE(sub.endDate));
  else if (chosen.rank > rank) text = b.effectUpgrade(chosen.label);
  else {
    const next = new Date(`${sub.endDate}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    text = b.effectDowngrade(chosen.label, formatIsoDateBE(next.toISOString().slice(0, 10)));
  }
  return (
    <p className="payment-effect" data-testid="pay-effect">
      {text}
    </p>
  );
}

/** /payment/local/:sessionId: the local provider of `make run` (no Stripe keys). */
export function LocalCheckoutPage() {
  usePageTitle(t.localTitle);
  const { sessionId = "" } = useParams();
  const q = useLocalCheckout(sessionId);
  const complete = useCompleteLocal(sessionId);
  const navigate = useNavigate();
  const c = q.data;
  if (q.isPending) return <section className="container payment-page">…</section>;
  if (!c) {
    return (
      <section className="container payment-page">
        <h1>{t.localTitle}</h1>
        <p>{t.localMissing}</p>
        <Link to="/payment" className="btn btn-primary btn-md">
          {t.backToPayment}
        </Link>
      </section>
    );
  }
  const finish = async (outcome: "paid" | "failed") => {
    await complete.mutateAsync(outcome);
    if (outcome === "paid") void navigate(`/payment/tier/success?session_id=${encodeURIComponent(sessionId)}`);
  };
  return (
    <section className="container payment-page" data-testid="local-checkout">
      <h1>{t.localTitle}</h1>
      <p className="muted">{t.localLead}</p>
      <dl className="payment-order">
        <dt>{t.plan}</dt>
        <dd>{c.tierLabel}</dd>
        <dt>{t.period}</dt>
        <dd>{c.period === "yearly" ? t.yearly : t.monthly}</dd>
        <dt>{t.method}</dt>
        <dd>{c.method === "card" ? t.card : t.promptpay}</dd>
        <dt>{t.total}</dt>
        <dd data-testid="local-amount">{formatBaht(c.amount)}</dd>
      </dl>
      {c.status === "open" ? (
        <div className="payment-actions">
          <button type="button" className="btn btn-primary btn-lg" disabled={complete.isPending} onClick={() => void finish("paid")} data-testid="local-pay">
            {t.localPay}
          </button>
          <button type="button" className="btn btn-ghost btn-lg" disabled={complete.isPending} onClick={() => void finish("failed")} data-testid="local-fail">
            {t.localFail}
          </button>
        </div>
      ) : (
        <p data-testid="local-status">{c.status === "paid" ? t.statusPaid : t.statusFailed}</p>
      )}
      {complete.data?.checkout?.status === "failed" && (
        <p className="payment-failed" role="alert">
          {t.statusFailed} <Link to="/payment">{t.backToPayment}</Link>
        </p>
      )}
    </section>
  );
}

/** /payment/tier/success: the plan now in force (refetched). */
export function PaymentSuccessPage() {
  usePageTitle(th.titles.paymentSuccess);
  const mine = useMySubscription({ fresh: true });
  const s = mine.isFetchedAfterMount ? mine.data : undefined;
  return (
    <section className="container payment-page" data-testid="payment-success">
      <h1>{th.titles.paymentSuccess}</h1>
      <p>{th.pages.paymentSuccessLead}</p>
      {s && (
        <p className="payment-current" data-testid="success-tier">
          {t.currentUntil(s.tierLabel, formatIsoDateBE(s.subscription?.endDate ?? ""))}
        </p>
      )}
      <Link to="/user-settings/account-status" className="btn btn-primary btn-md">
        {th.pages.goSettings}
      </Link>
    </section>
  );
}
