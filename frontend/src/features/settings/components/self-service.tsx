import { useRef, useState, type ChangeEvent, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { th } from "@/i18n/th";
import { authClient } from "@/lib/clients";
import { errorMessage } from "@/lib/errors";
import { formatThaiDate } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";
import { setAccessToken } from "@/lib/session";
import { Avatar } from "@/components/ui/avatar";
import { OtpInput, emptyOtp } from "@/components/ui/otp-input";
import { DeletionPlanNotice } from "@/features/payment";
import { toAppUser, useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { downloadMyData } from "../lib/my-data";
import { toAvatarJpeg } from "../lib/picture";

const t = th.selfService;

/** The display name and picture, edited in place. */
export function ProfileForm() {
  const user = useAuthStore((s) => s.user);
  const signedIn = useAuthStore((s) => s.set);
  const [name, setName] = useState(user?.name ?? "");
  // undefined: unchanged; "": removed; else the new picture.
  const [picture, setPicture] = useState<string | undefined>(undefined);
  const file = useRef<HTMLInputElement>(null);
  const save = useMutation({
    mutationFn: () => authClient().updateProfile({ name, pictureUrl: picture }),
    onSuccess: (r) => {
      signedIn({ user: toAppUser(r.user) });
      setPicture(undefined);
      toast.success(t.profileSaved);
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to save profile")),
  });
  if (!user) return null;
  const shown = picture ?? user.pictureUrl;
  const pick = async (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0];
    e.target.value = "";
    if (!f) return;
    if (f.size > 10 * 1024 * 1024 || !f.type.startsWith("image/")) {
      toast.error(t.pictureTooBig);
      return;
    }
    const url = await toAvatarJpeg(f);
    if (!url) toast.error(t.pictureUnreadable);
    else setPicture(url);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="settings-card" onSubmit={submit} data-testid="profile-form">
      <h2 className="settings-subtitle">{t.profile}</h2>
      <div className="settings-row">
        <Avatar name={name} username={user.username} pictureUrl={shown} size={64} />
        <input ref={file} type="file" accept="image/jpeg,image/png,image/webp" hidden onChange={(e) => void pick(e)} data-testid="picture-input" />
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => file.current?.click()}>
          {t.choosePicture}
        </button>
        {shown && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => setPicture("")} data-testid="picture-remove">
            {t.removePicture}
          </button>
        )}
      </div>
      <p className="muted">{t.pictureHint}</p>
      <label className="settings-field">
        {t.displayName}
        <input value={name} maxLength={100} onChange={(e) => setName(e.target.value)} data-testid="profile-name" />
      </label>
      <button type="submit" className="btn btn-primary btn-md" disabled={save.isPending} data-testid="profile-save">
        {t.save}
      </button>
    </form>
  );
}

/** A new e-mail: the current password, then the code sent to the new address. */
export function EmailForm({ hasPassword }: { hasPassword: boolean }) {
  const set = useAuthStore((s) => s.set);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [sentTo, setSentTo] = useState("");
  const [digits, setDigits] = useState(emptyOtp());
  const send = useMutation({
    mutationFn: () => authClient().requestEmailChange({ newEmail: email, currentPassword: password }),
    onSuccess: (r) => {
      setSentTo(r.email);
      setDigits(emptyOtp());
      setPassword("");
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to send OTP. Please try again.")),
  });
  const confirm = useMutation({
    mutationFn: (otp: string) => authClient().confirmEmailChange({ newEmail: sentTo, otp }),
    onSuccess: (r) => {
      // The change ended every session, this one too: go on with the new one.
      if (r.accessToken) setAccessToken(r.accessToken);
      set({ user: toAppUser(r.user), email: r.user?.email ?? "" });
      setSentTo("");
      setEmail("");
      toast.success(t.emailChanged);
    },
    onError: (err) => toast.error(errorMessage(err, "Verification failed. Please try again.")),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate();
  };
  return (
    <section className="settings-card" data-testid="email-form">
      <h2 className="settings-subtitle">{t.emailTitle}</h2>
      <p className="muted">{t.emailHelp}</p>
      {sentTo ? (
        <div data-testid="email-code">
          <p>{t.emailCodeSent(sentTo)}</p>
          <OtpInput value={digits} onChange={setDigits} onComplete={(code) => confirm.mutate(code)} disabled={confirm.isPending} />
          <div className="settings-row">
            <button type="button" className="btn btn-primary btn-md" disabled={confirm.isPending || digits.join("").length !== 6} onClick={() => confirm.mutate(digits.join(""))}>
              {t.confirmEmail}
            </button>
            <button type="button" className="btn btn-ghost btn-md" onClick={() => setSentTo("")}>
              {t.cancel}
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit}>
          <label className="settings-field">
            {t.newEmail}
            <input type="email" required autoComplete="email" maxLength={254} value={email} onChange={(e) => setEmail(e.target.value)} data-testid="email-new" />
          </label>
          {hasPassword && (
            <label className="settings-field">
              {t.currentPassword}
              <input type="password" required autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} data-testid="email-password" />
            </label>
          )}
          <button type="submit" className="btn btn-ghost btn-md" disabled={send.isPending} data-testid="email-send">
            {t.sendEmailCode}
          </button>
        </form>
      )}
    </section>
  );
}

/** Thailand's PDPA: take a copy of one's data, or erase the account. */
export function PrivacySection() {
  const navigate = useNavigate();
  const clearAuth = useAuthStore((s) => s.clearAuth);
  const qc = useQueryClient();
  const [step, setStep] = useState<"idle" | "code">("idle");
  const [sentTo, setSentTo] = useState("");
  const [digits, setDigits] = useState(emptyOtp());
  const exportData = useMutation({
    mutationFn: downloadMyData,
    onError: (err) => toast.error(errorMessage(err, "Failed to fetch data")),
  });
  const sendCode = useMutation({
    mutationFn: () => authClient().requestAccountDeletion({}),
    onSuccess: (r) => {
      setSentTo(r.email);
      setDigits(emptyOtp());
      setStep("code");
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to send OTP. Please try again.")),
  });
  const remove = useMutation({
    mutationFn: (otp: string) => authClient().deleteAccount({ otp }),
    onSuccess: () => {
      // Leave the guarded page first, or its guard sends the signed-out user to /login.
      void Promise.resolve(navigate("/", { replace: true })).then(() => {
        clearAuth();
        qc.clear();
        toast.success(t.deleted);
      });
    },
    onError: (err) => toast.error(errorMessage(err, "Verification failed. Please try again.")),
  });
  return (
    <section className="settings-card" data-testid="privacy">
      <h2 className="settings-subtitle">{t.privacy}</h2>
      <p className="muted">{t.exportHelp}</p>
      <button type="button" className="btn btn-ghost btn-md" disabled={exportData.isPending} onClick={() => exportData.mutate()} data-testid="export-my-data">
        {exportData.isPending ? t.exporting : t.exportData}
      </button>
      <hr className="settings-rule" />
      <h3 className="settings-subtitle danger">{t.deleteTitle}</h3>
      <p className="muted">{t.deleteHelp}</p>
      <DeletionPlanNotice />
      {step === "idle" ? (
        <button
          type="button"
          className="btn btn-danger btn-md"
          disabled={sendCode.isPending}
          onClick={() => window.confirm(t.deleteConfirm) && sendCode.mutate()}
          data-testid="delete-account"
        >
          {t.deleteStart}
        </button>
      ) : (
        <div data-testid="delete-code">
          <p>{t.codeSent(sentTo)}</p>
          <OtpInput value={digits} onChange={setDigits} onComplete={(code) => remove.mutate(code)} disabled={remove.isPending} />
          <div className="settings-row">
            <button type="button" className="btn btn-danger btn-md" disabled={remove.isPending || digits.join("").length !== 6} onClick={() => remove.mutate(digits.join(""))}>
              {t.deleteNow}
            </button>
            <button type="button" className="btn btn-ghost btn-md" onClick={() => setStep("idle")}>
              {t.cancel}
            </button>
          </div>
        </div>
      )}
    </section>
  );
}

/** The devices signed in to the account; sign out one, the others, or all. */
export function SessionsSection() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const clearAuth = useAuthStore((s) => s.clearAuth);
  const key = queryKeys.session.devices();
  const list = useQuery({ queryKey: key, queryFn: () => authClient().listSessions({}) });
  const refresh = () => void qc.invalidateQueries({ queryKey: key });
  const endOne = useMutation({
    mutationFn: (id: string) => authClient().endSession({ sessionId: id }),
    onSuccess: () => {
      toast.success(t.sessionEnded);
      refresh();
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to fetch data")),
  });
  const endAll = useMutation({
    mutationFn: (keepCurrent: boolean) => authClient().endAllSessions({ keepCurrent }),
    onSuccess: (_r, keepCurrent) => {
      if (keepCurrent) {
        toast.success(t.othersEnded);
        refresh();
        return;
      }
      clearAuth();
      qc.clear();
      void navigate("/login", { replace: true });
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to fetch data")),
  });
  const sessions = list.data?.sessions ?? [];
  return (
    <section className="settings-card" data-testid="sessions">
      <h2 className="settings-subtitle">{t.sessions}</h2>
      {list.isPending && <p className="muted">…</p>}
      <ul className="session-list">
        {sessions.map((s) => (
          <li key={s.sessionId} className="session-row" data-testid="session-row">
            <div>
              <p className="session-device">
                {s.device || t.unknownDevice} {s.current && <span className="chip">{t.thisDevice}</span>}
              </p>
              <p className="muted">
                {s.provider === "line" ? t.viaLine : t.viaPassword}
                {s.createdAt && ` · ${t.signedInOn(formatThaiDate(timestampDate(s.createdAt)))}`}
                {s.lastUsedAt && ` · ${t.lastUsed(formatThaiDate(timestampDate(s.lastUsedAt)))}`}
              </p>
            </div>
            {!s.current && (
              <button type="button" className="btn btn-ghost btn-sm" disabled={endOne.isPending} onClick={() => endOne.mutate(s.sessionId)} data-testid="session-end">
                {t.signOut}
              </button>
            )}
          </li>
        ))}
      </ul>
      <div className="settings-row">
        {sessions.length > 1 && (
          <button type="button" className="btn btn-ghost btn-md" disabled={endAll.isPending} onClick={() => endAll.mutate(true)} data-testid="sessions-end-others">
            {t.signOutOthers}
          </button>
        )}
        <button
          type="button"
          className="btn btn-ghost btn-md"
          disabled={endAll.isPending}
          onClick={() => window.confirm(t.signOutAllConfirm) && endAll.mutate(false)}
          data-testid="sessions-end-all"
        >
          {t.signOutAll}
        </button>
      </div>
    </section>
  );
}

/** Contact us: the message is stored and mailed to support. */
export function ContactForm() {
  const [topic, setTopic] = useState("");
  const [message, setMessage] = useState("");
  const [sent, setSent] = useState(false);
  const send = useMutation({
    mutationFn: () => authClient().submitContact({ topic, message }),
    onSuccess: () => {
      setSent(true);
      setTopic("");
      setMessage("");
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to send message")),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate();
  };
  if (sent) {
    return (
      <div className="settings-card" data-testid="contact-sent">
        <p>{t.contactThanks}</p>
        <button type="button" className="btn btn-ghost btn-md" onClick={() => setSent(false)}>
          {t.contactAgain}
        </button>
      </div>
    );
  }
  return (
    <form className="settings-card" onSubmit={submit} data-testid="contact-form">
      <label className="settings-field">
        {t.contactTopic}
        <input required maxLength={100} value={topic} onChange={(e) => setTopic(e.target.value)} data-testid="contact-topic" />
      </label>
      <label className="settings-field settings-field-wide">
        {t.contactMessage}
        <textarea required maxLength={4000} rows={6} value={message} onChange={(e) => setMessage(e.target.value)} data-testid="contact-message" />
      </label>
      <button type="submit" className="btn btn-primary btn-md" disabled={send.isPending} data-testid="contact-send">
        {t.contactSend}
      </button>
    </form>
  );
}
