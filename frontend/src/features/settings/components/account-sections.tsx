import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { th } from "@/i18n/th";
import { authClient, getClient } from "@/lib/clients";
import { errorMessage } from "@/lib/errors";
import { formatThaiDate } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";
import { useLoginOptions } from "@/lib/login-options";
import { Avatar } from "@/components/ui/avatar";
import { SubscriptionService } from "@/gen/subscription/v1/subscription_pb";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { EmailForm, PrivacySection, ProfileForm, SessionsSection } from "./self-service";
import { tierLines } from "@/features/home";
import "../settings.css";

const t = th.settingsPages;

/** /user-settings/user-info: who is signed in, the profile, and the user's data (PDPA). */
export function UserInfoSection() {
  const user = useAuthStore((s) => s.user);
  if (!user) return null;
  return (
    <>
      <AccountCard />
      <ProfileForm />
      <EmailSection />
      <PrivacySection />
    </>
  );
}

function EmailSection() {
  const sec = useSecurity();
  if (!sec.data) return null;
  return <EmailForm hasPassword={sec.data.hasPassword} />;
}

function AccountCard() {
  const user = useAuthStore((s) => s.user);
  if (!user) return null;
  return (
    <div className="settings-card" data-testid="settings-user">
      <Avatar name={user.name} username={user.username} pictureUrl={user.pictureUrl} size={64} />
      <dl className="settings-dl">
        <dt>{t.name}</dt>
        <dd>{user.name || "–"}</dd>
        <dt>{t.username}</dt>
        <dd>{user.username || "–"}</dd>
        <dt>{t.email}</dt>
        <dd data-testid="user-email">{user.email || "–"}</dd>
        <dt>{t.line}</dt>
        <dd>{user.lineId1 ? t.lineLinked : t.lineNotLinked}</dd>
      </dl>
    </div>
  );
}

function useSecurity() {
  return useQuery({ queryKey: queryKeys.session.security(), queryFn: () => authClient().getSecuritySettings({}) });
}

/** /user-settings/security-settings: two-step verification and the password. */
export function SecuritySection() {
  const qc = useQueryClient();
  const sec = useSecurity();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [offPassword, setOffPassword] = useState("");
  const twoStep = sec.data?.twoStepVerification === "enabled";

  const toggle = useMutation({
    mutationFn: (enabled: boolean) => authClient().updateTwoStep({ enabled, currentPassword: enabled ? "" : offPassword }),
    onSuccess: () => {
      setOffPassword("");
      toast.success(t.saved);
      void qc.invalidateQueries({ queryKey: queryKeys.session.all });
    },
    onError: (err) => toast.error(errorMessage(err, "Verification failed. Please try again.")),
  });
  const change = useMutation({
    mutationFn: () => authClient().changePassword({ currentPassword: current, newPassword: next }),
    onSuccess: () => {
      setCurrent("");
      setNext("");
      setConfirm("");
      toast.success(t.passwordChanged);
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to reset password. Please try again.")),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (next !== confirm) {
      toast.error(t.passwordsDiffer);
      return;
    }
    change.mutate();
  };
  if (!sec.data) return <p className="muted">…</p>;
  return (
    <div data-testid="settings-security">
      <section className="settings-card">
        <h2 className="settings-subtitle">{t.twoStep}</h2>
        <p data-testid="two-step-state">{twoStep ? t.twoStepOn : t.twoStepOff}</p>
        {twoStep ? (
          <div className="settings-row">
            {sec.data.hasPassword && (
              <label className="settings-field">
                {t.currentPassword}
                <input type="password" autoComplete="current-password" value={offPassword} onChange={(e) => setOffPassword(e.target.value)} data-testid="two-step-password" />
              </label>
            )}
            <button type="button" className="btn btn-ghost btn-md" disabled={toggle.isPending} onClick={() => toggle.mutate(false)} data-testid="two-step-off">
              {t.turnOff}
            </button>
          </div>
        ) : (
          <button type="button" className="btn btn-primary btn-md" disabled={toggle.isPending} onClick={() => toggle.mutate(true)} data-testid="two-step-on">
            {t.turnOn}
          </button>
        )}
      </section>
      {sec.data.hasPassword && (
        <form className="settings-card" onSubmit={submit}>
          <h2 className="settings-subtitle">{t.changePassword}</h2>
          {sec.data.passwordChangedAt && <p className="muted">{t.passwordChangedAt(formatThaiDate(timestampDate(sec.data.passwordChangedAt)))}</p>}
          <label className="settings-field">
            {t.currentPassword}
            <input type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
          </label>
          <label className="settings-field">
            {t.newPassword}
            <input type="password" autoComplete="new-password" required minLength={8} maxLength={128} value={next} onChange={(e) => setNext(e.target.value)} />
          </label>
          <label className="settings-field">
            {t.confirmPassword}
            <input type="password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          </label>
          <button type="submit" className="btn btn-primary btn-md" disabled={change.isPending}>
            {t.changePassword}
          </button>
        </form>
      )}
      <SessionsSection />
    </div>
  );
}

/** /user-settings/advanced-features: what the plan unlocks, and what it does not. */
export function AdvancedFeaturesSection() {
  const q = useQuery({
    queryKey: queryKeys.subscription.mine(),
    queryFn: ({ signal }) => getClient(SubscriptionService).getMySubscription({}, { signal }),
    staleTime: 5 * 60_000,
  });
  const d = q.data;
  if (!d) return <p className="muted">…</p>;
  const buttons = Object.entries(d.buttonStatusExamples).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div data-testid="settings-advanced">
      <p>{t.planFeatures(d.tierLabel)}</p>
      <ul className="feature-list">
        {tierLines(d).map(([k, text]) => (
          <li key={k}>{text}</li>
        ))}
      </ul>
      <table className="usage-table">
        <tbody>
          {buttons.map(([k, v]) => (
            <tr key={k}>
              <th scope="row">{th.home.limits[k] ?? k}</th>
              <td data-testid={`feature-${k}`}>{v === "enabled" ? t.enabled : t.locked}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {buttons.some(([, v]) => v !== "enabled") && (
        <Link to="/user-settings/pricing" className="btn btn-primary btn-md">
          {t.unlock}
        </Link>
      )}
    </div>
  );
}

/** /user-settings/line-api: the LINE account alerts go to. */
export function LineSection() {
  const user = useAuthStore((s) => s.user);
  const linked = !!user?.lineId1;
  // Without a LINE channel there is no LINE button to link with.
  const lineOff = useLoginOptions()?.lineLogin === false;
  // LINE's sign-in, then the e-mailed code to this account's address links
  // the two (the session alone never does: the code is the proof).
  const start = useMutation({
    mutationFn: () => authClient().lineAuthorize({ redirectTo: "/user-settings/line-api" }),
    onSuccess: (r) => window.location.assign(r.authorizeUrl),
    onError: (err) => toast.error(errorMessage(err, "Failed to fetch data")),
  });
  return (
    <div className="settings-card" data-testid="settings-line">
      <p data-testid="line-state">{linked ? t.lineLinked : t.lineNotLinked}</p>
      <p className="muted" data-testid="line-help">
        {linked ? t.lineLinkedHelp : lineOff ? th.lineUnavailable : t.lineHowTo}
      </p>
      <div className="settings-row">
        {!linked && !lineOff && (
          <button type="button" className="btn btn-line btn-md" disabled={start.isPending} onClick={() => start.mutate()} data-testid="line-link-start">
            {t.lineLink}
          </button>
        )}
        <Link to="/user-settings/notification-settings" className="btn btn-primary btn-md">
          {t.lineAlerts}
        </Link>
      </div>
    </div>
  );
}
