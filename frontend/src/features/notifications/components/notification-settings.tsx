import { useEffect, useState } from "react";
import { Link } from "react-router";
import { useAuthStore } from "@/stores/auth-store";
import { create } from "@bufbuild/protobuf";
import { th } from "@/i18n/th";
import { NotificationSettingsSchema, type NotificationSettings } from "@/gen/notification/v1/notification_pb";
import { Button } from "@/components/ui/button";
import { toast } from "@/stores/toast-store";
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
  useEffect(() => {
    if (q.data) setDraft(q.data);
  }, [q.data]);
  if (!draft) return <p className="muted">…</p>;
  const toggle = (k: Toggle, label: string) => (
    <label className="settings-toggle" key={k}>
      <input type="checkbox" checked={draft[k]} onChange={(e) => setDraft({ ...draft, [k]: e.target.checked })} data-testid={`setting-${k}`} />
      <span>{label}</span>
    </label>
  );
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
          {toggle("emailEnabled", t.emailEnabled)}
          {draft.emailEnabled && (
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
            toggle("lineEnabled", t.lineEnabled)
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
