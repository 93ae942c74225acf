import { useState } from "react";
import { th } from "@/i18n/th";
import { formatThaiDate } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { toast } from "@/stores/toast-store";
import { tsDate, useApiKeyActions, useApiKeys } from "../api/teams-api";
import { copyText } from "../lib/copy";

const t = th.teams;
const SCOPES = ["read", "write"] as const;

/**
 * The team's API keys (owners and admins): a new key with a name and
 * scopes, its secret shown once with a copy button, the list without
 * secrets (created, last used) and revoking.
 */
export function ApiKeysSection({ teamId, canEdit }: { teamId: string; canEdit: boolean }) {
  const keys = useApiKeys(teamId, true);
  const { create, revoke } = useApiKeyActions(teamId);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<string[]>(["read"]);
  const [error, setError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);

  const submit = () => {
    const n = name.trim();
    if (!n || [...n].length > 100) return setError(t.keyNameInvalid);
    if (scopes.length === 0) return setError(t.keyScopesInvalid);
    setError(null);
    create.mutate(
      { name: n, scopes },
      {
        onSuccess: (res) => {
          setSecret({ name: n, value: res.secret });
          setName("");
          toast.success(t.keyCreated);
        },
      },
    );
  };
  const toggle = (s: string) => setScopes((cur) => (cur.includes(s) ? cur.filter((x) => x !== s) : SCOPES.filter((x) => x === s || cur.includes(x))));

  return (
    <section className="card team-section" aria-labelledby="keys-title" data-testid="team-api-keys">
      <h2 id="keys-title">{t.keysTitle}</h2>
      <p className="muted small">{t.keysLead}</p>
      {secret && (
        <div className="key-secret" role="status" data-testid="key-secret">
          <label className="field-label" htmlFor="key-secret-value">
            {t.keySecretLabel}: {secret.name}
          </label>
          <div className="copy-row">
            <input id="key-secret-value" readOnly value={secret.value} onFocus={(e) => e.currentTarget.select()} data-testid="key-secret-value" />
            <Button size="sm" type="button" onClick={() => void copyText(secret.value, t.keyCopied)} data-testid="key-copy">
              {t.keyCopy}
            </Button>
          </div>
          <p className="small muted">{t.keySecretOnce}</p>
          <Button size="sm" variant="secondary" type="button" onClick={() => setSecret(null)} data-testid="key-secret-done">
            {t.keyDone}
          </Button>
        </div>
      )}
      {canEdit && (
        <form
          className="form key-form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <TextField
            label={t.keyName}
            value={name}
            maxLength={100}
            placeholder={t.keyNamePlaceholder}
            onChange={(e) => setName(e.target.value)}
            error={error}
            data-testid="key-name"
          />
          <fieldset className="key-scopes">
            <legend className="field-label">{t.keyScopes}</legend>
            {SCOPES.map((s) => (
              <div key={s} className="key-scope">
                <input id={`key-scope-${s}`} type="checkbox" checked={scopes.includes(s)} onChange={() => toggle(s)} data-testid={`key-scope-${s}`} />
                <label htmlFor={`key-scope-${s}`}>
                  <strong>{t.scopes[s]}</strong> <span className="small muted">{t.scopeHints[s]}</span>
                </label>
              </div>
            ))}
          </fieldset>
          <Button type="submit" loading={create.isPending} data-testid="key-create">
            {t.keyCreate}
          </Button>
        </form>
      )}
      {keys.data && keys.data.length === 0 && <p className="muted small">{t.keysEmpty}</p>}
      {keys.data && keys.data.length > 0 && (
        <ul className="member-list">
          {keys.data.map((k) => {
            const created = tsDate(k.createdAt);
            const used = tsDate(k.lastUsedAt);
            return (
              <li key={k.id} className="member-row" data-testid="key-row" data-key-name={k.name}>
                <div className="member-who">
                  <strong>{k.name}</strong>
                  <span className="small muted">
                    {k.prefix && <code>{k.prefix}…</code>} {k.scopes.map((s) => t.scopes[s] ?? s).join(" + ")}
                  </span>
                  <span className="small muted">
                    {created ? t.keyCreatedAt(formatThaiDate(created)) : ""} · {used ? t.keyLastUsed(formatThaiDate(used)) : t.keyNeverUsed}
                  </span>
                </div>
                {canEdit && (
                  <Button
                    size="sm"
                    variant="ghost"
                    loading={revoke.isPending && revoke.variables === k.id}
                    onClick={() => {
                      if (window.confirm(t.keyRevokeConfirm(k.name))) revoke.mutate(k.id, { onSuccess: () => toast.success(t.keyRevoked(k.name)) });
                    }}
                    data-testid="key-revoke"
                  >
                    {t.keyRevoke}
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
