import { Fragment, useState, type FormEvent } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { bahtOf, formatIsoDateBE } from "@/lib/format";
import type { Party } from "@/gen/subscription/v1/subscription_pb";
import { useBillingProfile, useReceipt, useReissueReceipt } from "../api/payment-api";
import { profileForm, toProfileInput, validateProfile, type ProfileErrors, type ProfileForm } from "../lib/billing-profile";
import { BuyerFields } from "./billing-sections";
import "../receipt.css";

const b = th.billing;
// Figures under a "(บาท)" heading: two decimals, no unit.
const amountFmt = new Intl.NumberFormat("th-TH", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * Text of our own (the title, the item sold, a payment method) that may wrap only at its spaces: Thai has
 * none between words, and the line breaker's dictionary lacks loanwords such as แพ็กเกจ or
 * พร้อมเพย์, so in a narrow cell it would break them in the middle.
 */
function Phrases({ text }: { text: string }) {
  // Spaces inside parentheses do not break: "(30 วัน)" stays one group.
  const parts = text.split(/ (?![^(]*\))/);
  return (
    <>
      {parts.map((w, i) => (
        // The space stays outside the group: it is where the line may break.
        <Fragment key={i}>
          {i > 0 && " "}
          <span className="nobr">{w}</span>
        </Fragment>
      ))}
    </>
  );
}

/** A receipt issued without a buyer: ask for its replacement tax invoice (once). */
function ReissueBox({ number }: { number: string }) {
  const [open, setOpen] = useState(false);
  const profile = useBillingProfile();
  const [form, setForm] = useState<ProfileForm | null>(null);
  const [errors, setErrors] = useState<ProfileErrors>({});
  const reissue = useReissueReceipt(number);
  const navigate = useNavigate();
  const value = form ?? profileForm(profile.data);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const errs = validateProfile(value);
    setErrors(errs);
    if (Object.keys(errs).length > 0 || !window.confirm(b.reissueConfirm)) return;
    // mutateAsync, not mutate's callbacks: the original, read again, no longer offers a
    // reissue, and this box may be gone before the answer is handled.
    const r = await reissue.mutateAsync(toProfileInput(value)).catch(() => null); // the hook shows the error
    if (r?.receipt) void navigate(`/receipt/${encodeURIComponent(r.receipt.number)}`);
  };
  return (
    <section className="billing-box receipt-reissue no-print" data-testid="receipt-reissue">
      <h2 className="settings-subtitle">{b.reissueTitle}</h2>
      <p className="muted">{b.reissueLead}</p>
      {!open ? (
        <button type="button" className="btn btn-ghost btn-md" onClick={() => setOpen(true)} data-testid="receipt-reissue-start">
          {b.reissueStart}
        </button>
      ) : (
        <form className="billing-form" onSubmit={(e) => void submit(e)} noValidate>
          {!profile.isPending && <BuyerFields value={value} onChange={setForm} errors={errors} />}
          <button type="submit" className="btn btn-primary btn-md" disabled={reissue.isPending || profile.isPending} data-testid="receipt-reissue-submit">
            {b.reissueSubmit}
          </button>
        </form>
      )}
    </section>
  );
}

function PartyBlock({ title, party, testId }: { title: string; party: Party; testId: string }) {
  return (
    <div className="receipt-party" data-testid={testId}>
      <h2>{title}</h2>
      <p className="receipt-party-name">{party.name || party.email}</p>
      {party.taxId && (
        <p>
          {b.taxIdShort} {party.taxId}
          {party.branchLabel && <> · {party.branchLabel}</>}
        </p>
      )}
      {party.address && <p className="receipt-address">{party.address}</p>}
      {party.name && party.email && (
        <p>
          {b.email} {party.email}
        </p>
      )}
    </div>
  );
}

/** /receipt/:number — the receipt / tax invoice, printable on A4 (print stylesheet). */
export function ReceiptPage() {
  const { number = "" } = useParams();
  usePageTitle(b.receiptPageTitle(number));
  const q = useReceipt(number);
  const r = q.data;
  if (q.isPending) return <section className="container receipt-screen">…</section>;
  if (!r) {
    return (
      <section className="container receipt-screen" data-testid="receipt-missing">
        <h1>{b.notFound}</h1>
        <Link to="/user-settings/payment-settings" className="btn btn-primary btn-md">
          {b.back}
        </Link>
      </section>
    );
  }
  const money = (satang: bigint, baht: number) => amountFmt.format(bahtOf(satang, baht) ?? 0);
  const method = r.method === "card" ? th.payment.card : th.payment.promptpay;
  return (
    <section className="container receipt-screen">
      <div className="receipt-actions no-print">
        <Link to="/user-settings/payment-settings" className="btn btn-ghost btn-md">
          {b.back}
        </Link>
        <button type="button" className="btn btn-primary btn-md" onClick={() => window.print()} data-testid="receipt-print">
          {b.print}
        </button>
      </div>
      {r.replacedByNumber && (
        <p className="receipt-notice no-print" data-testid="receipt-replaced-by">
          {b.replacedBy(r.replacedByNumber)} <Link to={`/receipt/${encodeURIComponent(r.replacedByNumber)}`}>{b.viewReplacement}</Link>
        </p>
      )}
      <article className="receipt" data-testid="receipt">
        <header className="receipt-head">
          <div>
            <h1 data-testid="receipt-title">
              <Phrases text={r.replacesNumber ? b.replacementTitle : b.receiptTitle} />
            </h1>
            <p className="receipt-original">{r.replacesNumber ? b.replacementMark : b.original}</p>
          </div>
          <dl className="receipt-meta">
            <dt>{b.number}</dt>
            <dd data-testid="receipt-number">{r.number}</dd>
            <dt>{b.issued}</dt>
            <dd data-testid="receipt-date">{formatIsoDateBE(r.issuedDate, true)}</dd>
          </dl>
          {r.replacesNumber && (
            <p className="receipt-replaces" data-testid="receipt-replaces">
              <Phrases text={b.replaces(r.replacesNumber, formatIsoDateBE(r.replacesIssuedDate, true))} />
            </p>
          )}
        </header>
        <div className="receipt-parties">
          {r.seller && <PartyBlock title={b.seller} party={r.seller} testId="receipt-seller" />}
          {r.buyer && <PartyBlock title={b.buyer} party={r.buyer} testId="receipt-buyer" />}
        </div>
        <table className="receipt-lines">
          <thead>
            <tr>
              <th scope="col">{b.item}</th>
              <th scope="col" className="num">
                {b.qty}
              </th>
              <th scope="col" className="num">
                <Phrases text={b.amount} />
              </th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td data-testid="receipt-item">
                <Phrases text={r.description} />
              </td>
              <td className="num">1</td>
              <td className="num">{money(r.amountSatang, r.amount)}</td>
            </tr>
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={2}>
                <Phrases text={b.base} />
              </th>
              <td className="num" data-testid="receipt-base">
                {money(r.baseSatang, r.base)}
              </td>
            </tr>
            <tr>
              <th scope="row" colSpan={2}>
                <Phrases text={b.vat(r.vatRatePercent)} />
              </th>
              <td className="num" data-testid="receipt-vat">
                {money(r.vatSatang, r.vat)}
              </td>
            </tr>
            <tr className="receipt-total">
              <th scope="row" colSpan={2}>
                <Phrases text={b.total} />
              </th>
              <td className="num" data-testid="receipt-total">
                {money(r.amountSatang, r.amount)}
              </td>
            </tr>
          </tfoot>
        </table>
        <p className="receipt-words" data-testid="receipt-words">
          ({r.amountWords})
        </p>
        <p className="receipt-note">
          {b.vatIncludedNote} · <Phrases text={b.paidBy(method)} />
        </p>
        <footer className="receipt-foot">
          <div className="receipt-sign">
            <span className="receipt-sign-line" />
            <span>{b.receivedBy}</span>
          </div>
          <p className="muted">{b.electronic}</p>
        </footer>
      </article>
      {r.canReissue && <ReissueBox number={r.number} />}
    </section>
  );
}
