import { useEffect, useState } from "react";
import { Link } from "react-router";
import { useAuthStore } from "@/stores/auth-store";
import { create } from "@bufbuild/protobuf";
import { th } from "@/i18n/th";
import { NotificationSettingsSchema, type NotificationSettings } from "@/gen/notification/v1/notification_pb";
import { Button } from "@/components/ui/button";
import { toast } from "@/stores/toast-store";
import { useMySubscription } from "@/features/payment";
import { useCreateTestNotification, useNotificationSettings, useSaveNotificationSettings } from "../api/notifications-api";
import { WebhookSection } from "./webhook-settings";
import "../notifications.css";

const t = th.notifications;
type Toggle = "bellEnabled" | "notifySearchMatches" | "notifyAnnouncements" | "notifyPayments" | "emailEnabled" | "lineEnabled";

/** /user-settings/notification-settings: which alerts reach the bell. */
export function NotificationSettingsSection() {
  const q = useNotificationSettings();
  const save = useSaveNotificationSettings();
  const test = useCreateTestNotification();
  const [draft, setDraft] = useState<NotificationSettings | null>(null);
  const lineLinked = !!useAuthStore((st) => st.user?.lineId1);
  // What the plan includes (the tier table's features); unknown while loading: nothing is closed, the server decides.
  const features = useMySubscription().data?.features;
  useEffect(() => {
    if (q.data) setDraft(q.data);
  }, [q.data]);
  if (!draft) return <p className="muted">…</p>;
  const toggle = (k: Toggle, label: string, closed = false) => (
    <label className="settings-toggle" key={k}>
      <input
        type="checkbox"
        checked={draft[k]}
        disabled={closed && !draft[k]}
        onChange={(e) => setDraft({ ...draft, [k]: e.target.checked })}
        data-testid={`setting-${k}`}
      />
      <span>{label}</span>
    </label>
  );
  // A channel the plan lacks cannot be turned on; one left on by a lapsed plan stays, silent, until turned off.
  const notInPlan = (feature: string) => !!features && !features.includes(feature);
  const planNote = (k: "emailEnabled" | "lineEnabled", text: string) => (
    <p className="muted small" data-testid={`not-in-plan-${k}`}>
      {text}
      {draft[k] ? ` ${t.pausedByPlan}` : ""} <Link to="/user-settings/pricing">{t.seePlans}</Link>
    </p>
  );
  const emailClosed = notInPlan("email_alerts");
  const lineClosed = notInPlan("line_alerts");
  return (
    <>
      <form
        className="notification-settings"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(create(NotificationSettingsSchema, draft));
        }}
      >
        <p className="muted">{t.settingsLead}</p>
        <fieldset>
          <legend>{t.settingsKinds}</legend>
          {toggle("bellEnabled", t.bellEnabled)}
          {toggle("notifySearchMatches", t.notifySearchMatches)}
          {toggle("notifyAnnouncements", t.notifyAnnouncements)}
          <label className="settings-toggle" key="notifyDeadlines">
            <input
              type="checkbox"
              checked={draft.notifyDeadlines ?? true}
              onChange={(e) => setDraft({ ...draft, notifyDeadlines: e.target.checked })}
              data-testid="setting-notifyDeadlines"
            />
            <span>
              {t.notifyDeadlines}
              <span className="settings-hint"> ({t.notifyDeadlinesHint})</span>
            </span>
          </label>
          {toggle("notifyPayments", t.notifyPayments)}
        </fieldset>
        <fieldset>
          <legend>{t.settingsChannels}</legend>
          {toggle("emailEnabled", t.emailEnabled, emailClosed)}
          {emailClosed && planNote("emailEnabled", t.emailNotInPlan)}
          {draft.emailEnabled && !emailClosed && (
            <div className="settings-radios" role="radiogroup" aria-label={t.emailEnabled}>
              {(["instant", "daily"] as const).map((v) => (
                <label key={v} className="settings-toggle">
                  <input
                    type="radio"
                    name="email-digest"
                    checked={draft.emailDigest === v}
                    onChange={() => setDraft({ ...draft, emailDigest: v })}
                    data-testid={`setting-email-${v}`}
                  />
                  <span>{v === "instant" ? t.emailInstant : t.emailDaily}</span>
                </label>
              ))}
            </div>
          )}
          {lineLinked ? (
            <>
              {toggle("lineEnabled", t.lineEnabled, lineClosed)}
              {lineClosed && planNote("lineEnabled", t.lineNotInPlan)}
            </>
          ) : (
            <p className="muted">
              {t.lineNotLinked} <Link to="/user-settings/line-api">{t.lineLink}</Link>
            </p>
          )}
        </fieldset>
        <button type="submit" className="btn btn-primary btn-md" disabled={save.isPending} data-testid="settings-save">
          {t.save}
        </button>
      </form>
      {/* Where a test is useful: right after choosing the alerts, it shows them arriving live. */}
      <fieldset className="notification-test" data-testid="notification-test">
        <legend>{t.testTitle}</legend>
        <p className="muted">{t.testLead}</p>
        <Button
          type="button"
          variant="secondary"
          size="sm"
          loading={test.isPending}
          onClick={() => test.mutate(undefined, { onSuccess: () => toast.success(t.testSent) })}
          data-testid="settings-test-notification"
        >
          {t.sendTest}
        </Button>
      </fieldset>
      <WebhookSection />
    </>
  );
}
