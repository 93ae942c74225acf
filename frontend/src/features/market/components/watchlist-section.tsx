import { useId, useState, type FormEvent } from "react";
import { Link } from "react-router";
import { th } from "@/i18n/th";
import { formatNumber } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { FieldFrame, fieldDescribedBy } from "@/components/ui/field-frame";
import { isUpgradeRequired, useAddWatch, useMarketAccess, useRemoveWatch, useWatchlist, watchErrorMessage } from "../api/market-api";
import { checkTaxId, formatTaxId, type TaxIdCheck } from "../lib/tax-id";
import { fmtBahtShort } from "../lib/view";
import { MarketError, supplierHref, UpgradePrompt } from "./parts";
import "../market.css";

const t = th.market;

/** The Thai of a tax id refused before it is sent. */
export function taxIdError(c: TaxIdCheck): string {
  if (c.ok) return "";
  return c.why === "empty" ? t.taxIdEmpty : c.why === "shape" ? t.taxIdShape : t.taxIdCheck;
}

/**
 * /user-settings/watchlist (pro and enterprise): the competitors' tax ids
 * the user watches; a new award for one rings the bell (category
 * competitor_win) and the user's channels.
 */
export function WatchlistSection() {
  const id = useId();
  const access = useMarketAccess();
  const list = useWatchlist(access.ask.profiles);
  const add = useAddWatch();
  const remove = useRemoveWatch();
  const [text, setText] = useState("");
  const [error, setError] = useState("");

  if (access.profiles === false || (list.isError && isUpgradeRequired(list.error))) return <UpgradePrompt what="profiles" />;

  const items = list.data?.items ?? [];
  const limit = list.data ? Number(list.data.limit) : undefined;
  const full = limit !== undefined && limit >= 0 && items.length >= limit;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const c = checkTaxId(text);
    if (!c.ok) {
      setError(taxIdError(c));
      return;
    }
    if (items.some((w) => w.taxId === c.id)) {
      setError(t.alreadyWatched);
      return;
    }
    add.mutate(c.id, {
      onSuccess: () => {
        setText("");
        setError("");
      },
      onError: (err) => setError(watchErrorMessage(err)),
    });
  };

  return (
    <div className="mk-watchlist" data-testid="watchlist">
      <p className="lead">{t.watchlistLead}</p>
      <form className="mk-watch-form" onSubmit={submit} noValidate>
        <FieldFrame id={id} label={t.watchlistInput} error={error}>
          <div className="mk-search-row">
            <input
              id={id}
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                setError("");
              }}
              inputMode="numeric"
              autoComplete="off"
              placeholder="0105559012342"
              aria-invalid={error ? true : undefined}
              aria-describedby={fieldDescribedBy(id, error)}
              data-testid="watch-taxid"
            />
            <Button type="submit" loading={add.isPending} disabled={full} data-testid="watch-add">
              {t.watchlistAdd}
            </Button>
          </div>
        </FieldFrame>
      </form>
      {limit !== undefined && (
        <p className={full ? "form-error" : "muted small"} data-testid="watch-usage">
          {limit < 0 ? formatNumber(items.length) : t.watchlistUsage(formatNumber(items.length), formatNumber(limit))}
          {full && ` · ${t.watchlistFull(formatNumber(limit))}`}
        </p>
      )}
      {list.isError ? (
        <MarketError error={list.error} onRetry={() => void list.refetch()} />
      ) : list.isPending ? (
        <div className="sk sk-block" aria-busy="true" />
      ) : items.length === 0 ? (
        <p className="muted" data-testid="watch-empty">
          {t.watchlistEmpty}
        </p>
      ) : (
        <ul className="mk-list card" data-testid="watch-list">
          {items.map((w) => (
            <li key={w.taxId} className="mk-list-row" data-testid="watch-row">
              <div className="mk-list-main">
                <Link to={supplierHref(w.taxId)} className="mk-winner-name">
                  {w.name || formatTaxId(w.taxId)}
                </Link>
                <span className="muted small">
                  {formatTaxId(w.taxId)} · {Number(w.wins) > 0 ? `${t.winsN(formatNumber(Number(w.wins)))} · ${fmtBahtShort(w.totalBaht)}` : t.watchlistNoWins}
                </span>
              </div>
              <Button
                variant="ghost"
                size="sm"
                loading={remove.isPending && remove.variables === w.taxId}
                onClick={() => remove.mutate(w.taxId)}
                aria-label={`${t.unwatch} ${w.name || w.taxId}`}
                data-testid="watch-remove"
              >
                {t.unwatch}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
