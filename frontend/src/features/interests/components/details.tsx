import { useEffect, useRef, useState, type FormEvent } from "react";
import { th } from "@/i18n/th";
import { reasons } from "@/i18n/reasons";
import { formatMoney, formatThaiDate } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { MoneyInput } from "@/components/ui/money-input";
import { TextField } from "@/components/ui/text-field";
import { selectUser, useAuthStore } from "@/stores/auth-store";
import { useBidsStore } from "@/stores/bids-store";
import type { UserInterest } from "@/gen/interests/v1/interests_pb";
import { marksOf, tsToDate, useCommentActions, useComments, useInterest, useSaveBid } from "../api/interests-api";
import { parsePercent, percentFromPrice, priceForPercent, toSatang, validPercent, validPrice } from "../lib/bid";
import { MarkBar } from "./marks";
import "../interests.css";

const t = th.interests;

/** The signed-in user's part of a project's page: marks, bid, comments. */
export function InterestPanel({ projectId, baseSatang }: { projectId: string; baseSatang: number | null }) {
  const q = useInterest(projectId);
  return (
    <section className="interest-panel" aria-label={t.panelLabel} data-testid="interest-panel">
      <div className="card">
        <h2>{t.marksTitle}</h2>
        <MarkBar projectId={projectId} marks={marksOf(q.data)} />
      </div>
      <BidPanel projectId={projectId} baseSatang={baseSatang} interest={q.data} ready={q.isSuccess} />
      <Comments projectId={projectId} commentCount={q.data?.commentCount} />
    </section>
  );
}

const iso = (d: Date | null) => (d ? d.toISOString() : "");

/**
 * Bid price and reduction, each computing the other from the reference price
 * (else the budget). Kept in browser storage (projectBids) and on the server;
 * the newer lastUpdated wins, so the bid follows the user to another device.
 * The price the user typed is the one saved: a percent is saved only when the
 * user typed one that differs from the typed price's own (priceForPercent).
 */
function BidPanel({ projectId, baseSatang, interest, ready }: { projectId: string; baseSatang: number | null; interest?: UserInterest; ready: boolean }) {
  const local = useBidsStore((s) => s.bids[projectId]);
  const putBid = useBidsStore((s) => s.putBid);
  const save = useSaveBid(projectId);
  const [price, setPrice] = useState<number | null>(null);
  // The last price typed (or saved): a percent that gives it back keeps it.
  const [typedPrice, setTypedPrice] = useState<number | null>(null);
  const [percent, setPercent] = useState("");
  const [edited, setEdited] = useState<"price" | "percent" | null>(null);
  const synced = useRef(false);

  const serverAt = iso(tsToDate(interest?.lastUpdated));
  const shown = (p: number | null | undefined, r: number | null | undefined) => {
    setPrice(p ?? null);
    setTypedPrice(p ?? null);
    setPercent(r != null ? String(r) : "");
  };

  // Once the server's copy is known: the newer of the two wins.
  useEffect(() => {
    if (!ready || synced.current) return;
    synced.current = true;
    const server = interest?.bidPrice != null || interest?.reductionPercent != null ? interest : undefined;
    if (server && (!local || serverAt >= local.lastUpdated)) {
      putBid(projectId, { bidPrice: server.bidPrice ?? null, reductionPercent: server.reductionPercent ?? null, lastUpdated: serverAt });
      shown(server.bidPrice, server.reductionPercent);
    } else if (local && (local.bidPrice != null || local.reductionPercent != null)) {
      shown(local.bidPrice, local.reductionPercent);
      if (local.lastUpdated > serverAt)
        save.mutate(local.bidPrice != null ? { bidPrice: local.bidPrice } : { reductionPercent: local.reductionPercent! });
    }
  }, [ready, interest, local, serverAt, projectId, putBid, save]);

  // The server's answer (with the computed other half) becomes the local copy.
  useEffect(() => {
    const d = save.data?.data;
    if (!d) return;
    const at = iso(tsToDate(d.lastUpdated));
    putBid(projectId, { bidPrice: d.bidPrice ?? null, reductionPercent: d.reductionPercent ?? null, lastUpdated: at || new Date().toISOString() });
    shown(d.bidPrice, d.reductionPercent);
  }, [save.data, projectId, putBid]);

  const onPrice = (p: number | null) => {
    setPrice(p);
    setTypedPrice(p);
    setEdited("price");
    if (p === null || baseSatang === null) return;
    const r = percentFromPrice(baseSatang, p);
    setPercent(r !== null ? String(r) : "");
  };
  const onPercent = (v: string) => {
    setPercent(v);
    const r = parsePercent(v);
    // A percent out of range or not a number leaves the price alone; its message says why.
    if (r === null || !validPercent(r)) {
      setEdited("percent");
      return;
    }
    const next = priceForPercent(baseSatang, r, typedPrice);
    setEdited(next.typed ? "price" : "percent");
    if (next.price !== null) setPrice(next.price);
  };
  const percentValue = parsePercent(percent);
  const aboveBase = price !== null && baseSatang !== null && baseSatang > 0 && toSatang(price) > baseSatang;
  const priceError = price !== null && !validPrice(price) ? t.bidPriceInvalid : aboveBase ? reasons["bid-above-reference"] : "";
  const percentError = percentValue !== null && !validPercent(percentValue) ? t.reductionInvalid : "";

  // Refused before it is sent: a message stands by a field.
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!edited || priceError || percentError) return;
    if (edited === "percent" && percentValue !== null) save.mutate({ reductionPercent: percentValue });
    else if (price !== null) save.mutate({ bidPrice: price });
  };
  const at = local?.lastUpdated || serverAt;

  return (
    <form className="card" onSubmit={submit} data-testid="bid-panel" noValidate>
      <h2>{t.bidTitle}</h2>
      <div className="bid-grid">
        <MoneyInput label={t.bidPrice} value={price} onChange={onPrice} error={priceError} placeholder={t.bidPricePlaceholder} testId="bid-price" />
        <TextField
          label={t.reduction}
          value={percent}
          onChange={(e) => onPercent(e.target.value)}
          error={percentError}
          inputMode="decimal"
          autoComplete="off"
          placeholder={t.reductionPlaceholder}
          data-testid="bid-percent"
        />
        <Button type="submit" loading={save.isPending} disabled={!edited || !!priceError || !!percentError} data-testid="bid-save">
          {t.bidSave}
        </Button>
      </div>
      <p className="bid-meta">
        {baseSatang ? t.bidBase(formatMoney(baseSatang / 100)) : t.bidNoBase}
        {at && <span data-testid="bid-updated"> · {t.bidUpdated(formatThaiDate(at, true))}</span>}
      </p>
    </form>
  );
}

/** The user's own notes on the project: list, add, edit, delete. */
function Comments({ projectId, commentCount }: { projectId: string; commentCount?: number }) {
  const q = useComments(projectId, commentCount);
  const { add, edit, remove } = useCommentActions(projectId);
  const user = useAuthStore(selectUser);
  const [text, setText] = useState("");
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);
  const tooLong = [...text].length > 2000;

  return (
    <div className="card" data-testid="comments">
      <h2>{t.commentsTitle(commentCount ? (q.data?.length ?? commentCount) : 0)}</h2>
      {q.isError && <p className="form-error">{t.commentsError}</p>}
      <ul className="comments">
        {(commentCount ? (q.data ?? []) : []).map((c) =>
          editing?.id === c.id ? (
            <li key={c.id} className="comment comment-form">
              <label className="sr-only" htmlFor={`edit-${c.id}`}>
                {t.commentEdit}
              </label>
              <textarea id={`edit-${c.id}`} value={editing.text} onChange={(e) => setEditing({ id: c.id, text: e.target.value })} />
              <div className="comment-form-actions">
                <Button size="sm" variant="secondary" onClick={() => setEditing(null)} type="button">
                  {th.common.cancel}
                </Button>
                <Button
                  size="sm"
                  type="button"
                  loading={edit.isPending}
                  disabled={!editing.text.trim()}
                  onClick={() => edit.mutate({ id: c.id, text: editing.text }, { onSuccess: () => setEditing(null) })}
                >
                  {t.commentSave}
                </Button>
              </div>
            </li>
          ) : (
            <li key={c.id} className="comment" data-testid="comment">
              <p className="comment-text">{c.commentText}</p>
              <div className="comment-meta">
                <span>{formatThaiDate(tsToDate(c.createdAt) ?? new Date(), true)}</span>
                {user && (
                  <>
                    <button type="button" onClick={() => setEditing({ id: c.id, text: c.commentText })}>
                      {t.commentEdit}
                    </button>
                    <button type="button" onClick={() => remove.mutate(c.id)} data-testid="comment-delete">
                      {t.commentDelete}
                    </button>
                  </>
                )}
              </div>
            </li>
          ),
        )}
      </ul>
      <form
        className="comment-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim() && !tooLong) add.mutate(text, { onSuccess: () => setText("") });
        }}
      >
        <label className="field-label" htmlFor="comment-new">
          {t.commentAdd}
        </label>
        <textarea id="comment-new" value={text} onChange={(e) => setText(e.target.value)} placeholder={t.commentPlaceholder} data-testid="comment-input" />
        <div className="comment-form-actions">
          <span className={tooLong ? "field-error" : "muted"}>{t.commentCount([...text].length)}</span>
          <Button type="submit" size="sm" loading={add.isPending} disabled={!text.trim() || tooLong} data-testid="comment-submit">
            {t.commentSubmit}
          </Button>
        </div>
      </form>
    </div>
  );
}
