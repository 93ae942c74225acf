import { Link, useParams } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { bahtOf, formatIsoDateBE } from "@/lib/format";
import type { Party } from "@/gen/subscription/v1/subscription_pb";
import { useReceipt } from "../api/payment-api";
import "../receipt.css";

const b = th.billing;
// Figures under a "(บาท)" heading: two decimals, no unit.
const amountFmt = new Intl.NumberFormat("th-TH", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

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
      <article className="receipt" data-testid="receipt">
        <header className="receipt-head">
          <div>
            <h1>{b.receiptTitle}</h1>
            <p className="receipt-original">{b.original}</p>
          </div>
          <dl className="receipt-meta">
            <dt>{b.number}</dt>
            <dd data-testid="receipt-number">{r.number}</dd>
            <dt>{b.issued}</dt>
            <dd data-testid="receipt-date">{formatIsoDateBE(r.issuedDate, true)}</dd>
          </dl>
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
                {b.amount}
              </th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>{r.description}</td>
              <td className="num">1</td>
              <td className="num">{money(r.amountSatang, r.amount)}</td>
            </tr>
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={2}>
                {b.base}
              </th>
              <td className="num" data-testid="receipt-base">
                {money(r.baseSatang, r.base)}
              </td>
            </tr>
            <tr>
              <th scope="row" colSpan={2}>
                {b.vat(r.vatRatePercent)}
              </th>
              <td className="num" data-testid="receipt-vat">
                {money(r.vatSatang, r.vat)}
              </td>
            </tr>
            <tr className="receipt-total">
              <th scope="row" colSpan={2}>
                {b.total}
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
          {b.vatIncludedNote} · {b.paidBy(method)}
        </p>
        <footer className="receipt-foot">
          <div className="receipt-sign">
            <span className="receipt-sign-line" />
            <span>{b.receivedBy}</span>
          </div>
          <p className="muted">{b.electronic}</p>
        </footer>
      </article>
    </section>
  );
}
