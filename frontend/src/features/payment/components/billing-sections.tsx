import { useId, useState, type FormEvent } from "react";
import { th } from "@/i18n/th";
import { FieldFrame, fieldDescribedBy } from "@/components/ui/field-frame";
import { TextField } from "@/components/ui/text-field";
import { formatIsoDateBE } from "@/lib/format";
import { useBillingProfile, useMySubscription, useRenewal, useSaveBillingProfile } from "../api/payment-api";
import "../payment.css";
import { profileForm, toProfileInput, validateProfile, type ProfileErrors, type ProfileForm } from "../lib/billing-profile";

const b = th.billing;

/** The lifecycle rule (upgrade, downgrade, extend, cancel, passes) in Thai. */
export function LifecycleRule() {
  return (
    <details className="billing-rule" data-testid="lifecycle-rule">
      <summary>{b.ruleTitle}</summary>
      <ul>
        <li>{b.ruleUpgrade}</li>
        <li>{b.ruleDowngrade}</li>
        <li>{b.ruleExtend}</li>
        <li>{b.ruleCancel}</li>
        <li>{b.rulePass}</li>
      </ul>
    </details>
  );
}

/** The plan's renewal: renews, cancelled (until), or a pass; cancel / resume. */
export function RenewalPanel() {
  const q = useMySubscription();
  const renewal = useRenewal();
  const sub = q.data?.subscription;
  if (!q.data || !sub || sub.status !== "active" || q.data.tier === "free") return null;
  const end = formatIsoDateBE(sub.endDate, true);
  const isCard = sub.method === "card";
  const cancel = () => {
    if (window.confirm(b.confirmCancel(end))) renewal.mutate("cancel");
  };
  return (
    <section className="billing-box" data-testid="renewal-panel">
      <h2 className="settings-subtitle">{b.renewalTitle}</h2>
      <p data-testid="renewal-state">
        {!isCard ? b.passEnds(end) : sub.cancelAtPeriodEnd ? b.cancelled(end) : b.autoRenewOn(end)}
      </p>
      {sub.next && (
        <p data-testid="renewal-next">
          {b.nextPlan(sub.next.tierLabel, formatIsoDateBE(sub.next.startDate, true), formatIsoDateBE(sub.next.endDate, true))}
        </p>
      )}
      {isCard && <p className="muted">{b.ruleCancel}</p>}
      {isCard &&
        // canResume is false with a lower plan booked to follow (the old card would renew beside
        // it) or when the card's subscription has ended at the provider (the server refuses too).
        (sub.cancelAtPeriodEnd ? (
          sub.canResume && <button type="button" className="btn btn-primary btn-md" disabled={renewal.isPending} onClick={() => renewal.mutate("resume")} data-testid="renewal-resume">
            {b.resume}
          </button>
        ) : (
          <button type="button" className="btn btn-ghost btn-md" disabled={renewal.isPending} onClick={cancel} data-testid="renewal-cancel">
            {b.cancel}
          </button>
        ))}
    </section>
  );
}

/** The billing profile (who receipts are made out to), checked here and on the server. */
export function BillingProfileSection() {
  const q = useBillingProfile();
  if (q.isPending) return <p className="muted">…</p>;
  return <BillingProfileForm initial={profileForm(q.data)} />;
}

export function BillingProfileForm({ initial }: { initial: ProfileForm }) {
  const [f, setF] = useState<ProfileForm>(initial);
  const [errors, setErrors] = useState<ProfileErrors>({});
  const save = useSaveBillingProfile();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const errs = validateProfile(f);
    setErrors(errs);
    if (Object.keys(errs).length > 0) return;
    save.mutate(toProfileInput(f));
  };
  return (
    <form className="billing-box billing-form" onSubmit={submit} noValidate data-testid="billing-profile-form">
      <h2 className="settings-subtitle">{b.profileTitle}</h2>
      <p className="muted">{b.profileLead}</p>
      <BuyerFields value={f} onChange={setF} errors={errors} />
      <button type="submit" className="btn btn-primary btn-md" disabled={save.isPending} data-testid="billing-save">
        {b.save}
      </button>
    </form>
  );
}

/** The buyer's fields (the billing profile's, a checkout's, a reissue's): kind, name, tax id,
 * head office or branch, address; errors from validateProfile. */
export function BuyerFields({ value: f, onChange, errors }: { value: ProfileForm; onChange: (f: ProfileForm) => void; errors: ProfileErrors }) {
  const addressId = useId();
  const radio = useId();
  const set = <K extends keyof ProfileForm>(k: K, v: ProfileForm[K]) => onChange({ ...f, [k]: v });
  const company = f.kind === "company";
  return (
    <>
      <fieldset className="billing-choice">
        <legend>{b.kind}</legend>
        {(["person", "company"] as const).map((k) => (
          <label key={k}>
            <input type="radio" name={`${radio}-kind`} value={k} checked={f.kind === k} onChange={() => set("kind", k)} data-testid={`billing-kind-${k}`} />{" "}
            {k === "company" ? b.company : b.person}
          </label>
        ))}
      </fieldset>
      <TextField label={company ? b.nameCompany : b.namePerson} value={f.name} onChange={(e) => set("name", e.target.value)} error={errors.name} maxLength={200} data-testid="billing-name" />
      <TextField
        label={b.taxId}
        value={f.taxId}
        onChange={(e) => set("taxId", e.target.value)}
        error={errors.taxId}
        inputMode="numeric"
        maxLength={20}
        data-testid="billing-tax-id"
      />
      {company && (
        <fieldset className="billing-choice">
          <legend>{b.office}</legend>
          <label>
            <input type="radio" name={`${radio}-office`} checked={f.headOffice} onChange={() => set("headOffice", true)} data-testid="billing-head-office" /> {b.headOffice}
          </label>
          <label>
            <input type="radio" name={`${radio}-office`} checked={!f.headOffice} onChange={() => set("headOffice", false)} data-testid="billing-branch-office" /> {b.branchOffice}
          </label>
        </fieldset>
      )}
      {company && !f.headOffice && (
        <TextField label={b.branch} value={f.branch} onChange={(e) => set("branch", e.target.value)} error={errors.branch} inputMode="numeric" maxLength={5} data-testid="billing-branch" />
      )}
      <FieldFrame id={addressId} label={b.address} error={errors.address}>
        <div className="field-control">
          <textarea
            id={addressId}
            className="billing-address"
            rows={3}
            value={f.address}
            maxLength={500}
            onChange={(e) => set("address", e.target.value)}
            aria-invalid={errors.address ? true : undefined}
            aria-describedby={fieldDescribedBy(addressId, errors.address)}
            data-testid="billing-address"
          />
        </div>
      </FieldFrame>
    </>
  );
}

/** On the account deletion screen: what deleting does to a plan in force (nothing when free). */
export function DeletionPlanNotice() {
  const q = useMySubscription();
  const sub = q.data?.subscription;
  if (!q.data || !sub || sub.status !== "active" || q.data.tier === "free" || !sub.endDate) return null;
  const end = formatIsoDateBE(sub.endDate, true);
  return (
    <div className="billing-warning" role="note" data-testid="delete-plan-warning">
      <p>{sub.method === "card" ? b.deletePlanCard(q.data.tierLabel, end) : b.deletePlanPass(q.data.tierLabel, end)}</p>
      {sub.next && <p>{b.deletePlanNext(sub.next.tierLabel)}</p>}
      <p>{b.deletePlanReceipts}</p>
    </div>
  );
}
