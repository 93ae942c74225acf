import { useState } from "react";
import { Code, ConnectError } from "@connectrpc/connect";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { formatThaiDate } from "@/lib/format";
import { errorMessage } from "@/lib/errors";
import { toast } from "@/stores/toast-store";
import type { WebhookDelivery } from "@/gen/notification/v1/notification_pb";
import { useDeleteWebhook, useSetWebhook, useWebhook } from "../api/notifications-api";
import { webhookText as t } from "../webhook-text";

const when = (ts: Timestamp | undefined) => (ts ? formatThaiDate(timestampDate(ts)) : "");
const whenTime = (ts: Timestamp | undefined) =>
  ts ? timestampDate(ts).toLocaleString("th-TH-u-ca-buddhist", { dateStyle: "medium", timeStyle: "short" }) : "";

/** The outgoing webhook: its address, the secret shown once, the delivery log. */
export function WebhookSection() {
  const q = useWebhook();
  const setHook = useSetWebhook();
  const remove = useDeleteWebhook();
  const [editing, setEditing] = useState(false);
  const [url, setUrl] = useState("");
  const [error, setError] = useState("");
  const [secret, setSecret] = useState("");
  const [copied, setCopied] = useState(false);
  const hook = q.data?.webhook;
  const showForm = !hook || editing;

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setError("");
    setHook.mutate(url.trim(), {
      onSuccess: (r) => {
        setSecret(r.secret);
        setCopied(false);
        setEditing(false);
        setUrl("");
        toast.success(t.saved);
      },
      onError: (err) => {
        const invalid = ConnectError.from(err).code === Code.InvalidArgument;
        setError(invalid ? t.urlInvalid : errorMessage(err, "Failed to save notification settings"));
      },
    });
  };

  return (
    <section className="webhook-settings" aria-labelledby="webhook-title" data-testid="webhook-section">
      <h3 id="webhook-title">{t.title}</h3>
      <p className="muted">{t.lead}</p>

      {secret && (
        <div className="webhook-secret" role="status" data-testid="webhook-secret">
          <strong>{t.secretTitle}</strong>
          <p className="muted">{t.secretOnce}</p>
          <code>{secret}</code>
          <div className="webhook-actions">
            <button
              type="button"
              className="btn btn-secondary btn-sm"
              onClick={() => {
                void navigator.clipboard?.writeText(secret).then(() => setCopied(true));
              }}
            >
              {copied ? t.copied : t.copy}
            </button>
            <button type="button" className="btn btn-primary btn-sm" onClick={() => setSecret("")} data-testid="webhook-secret-done">
              {t.secretDone}
            </button>
          </div>
        </div>
      )}

      {hook && !editing && (
        <div className="webhook-current" data-testid="webhook-current">
          <p>
            {t.current} <code>{hook.url}</code>
          </p>
          <p className="muted">
            {t.since(when(hook.createdAt))} · {t.hint(hook.secretHint)}
          </p>
          <div className="webhook-actions">
            <button type="button" className="btn btn-secondary btn-sm" onClick={() => setEditing(true)} data-testid="webhook-change">
              {t.change}
            </button>
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              disabled={remove.isPending}
              onClick={() => {
                if (window.confirm(t.confirmRemove)) remove.mutate(undefined, { onSuccess: () => toast.success(t.removed) });
              }}
              data-testid="webhook-remove"
            >
              {t.remove}
            </button>
          </div>
        </div>
      )}

      {showForm && q.isSuccess && (
        <form className="webhook-form" onSubmit={submit} noValidate>
          <label htmlFor="webhook-url">{t.url}</label>
          <input
            id="webhook-url"
            type="url"
            inputMode="url"
            autoComplete="off"
            placeholder={t.urlPlaceholder}
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            aria-invalid={!!error}
            aria-describedby={error ? "webhook-url-error" : undefined}
            data-testid="webhook-url"
          />
          {error && (
            <p id="webhook-url-error" className="form-error" role="alert" data-testid="webhook-error">
              {error}
            </p>
          )}
          <div className="webhook-actions">
            <button type="submit" className="btn btn-primary btn-md" disabled={setHook.isPending || !url.trim()} data-testid="webhook-save">
              {t.save}
            </button>
            {editing && (
              <button type="button" className="btn btn-secondary btn-md" onClick={() => setEditing(false)}>
                {t.cancel}
              </button>
            )}
          </div>
        </form>
      )}
      <p className="muted webhook-howto">{t.howTo}</p>

      {hook || (q.data?.deliveries.length ?? 0) > 0 ? <DeliveryLog items={q.data?.deliveries ?? []} /> : null}
    </section>
  );
}

function DeliveryLog({ items }: { items: WebhookDelivery[] }) {
  return (
    <div className="webhook-log">
      <h4>{t.log}</h4>
      {items.length === 0 ? (
        <p className="muted">{t.logEmpty}</p>
      ) : (
        <ul data-testid="webhook-log">
          {items.map((d) => (
            <li key={d.deliveryId} className="webhook-log-item" data-testid="webhook-log-item">
              <div className="webhook-log-head">
                <span className={`webhook-status webhook-status-${d.status}`}>{t.status[d.status] ?? d.status}</span>
                <time dateTime={d.createdAt ? timestampDate(d.createdAt).toISOString() : undefined}>{whenTime(d.createdAt)}</time>
              </div>
              <p className="webhook-log-title">{d.title}</p>
              <p className="muted">
                {t.attempts(d.attempts)} · {d.lastStatusCode > 0 ? t.http(d.lastStatusCode) : d.attempts > 0 ? t.noAnswer : ""}
                {d.status === "pending" && d.nextAttemptAt ? ` · ${t.nextAttempt(whenTime(d.nextAttemptAt))}` : ""}
              </p>
              {d.lastError && d.status !== "sent" && !/^HTTP \d+$/.test(d.lastError) && (
                <p className="muted webhook-log-error">{t.problems[d.lastError] ?? t.problemOther}</p>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
