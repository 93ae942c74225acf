import { useEffect, useId, useRef, useState } from "react";
import { Link } from "react-router";
import { th } from "@/i18n/th";
import { formatIsoDateBE, formatThaiDate, parseThaiDateInput } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { IconClose } from "@/components/ui/icons";
import { toast } from "@/stores/toast-store";
import type { Member, PipelineItem } from "@/gen/teams/v1/teams_pb";
import {
  tsDate,
  useAddComment,
  useDeleteItem,
  useItemComments,
  useItemHistory,
  usePipelineItem,
  useSaveItem,
  type ItemPatch,
} from "../api/teams-api";
import { actorName, fieldLabel, fieldValue } from "../lib/history";
import { formatSatang, parseSatang } from "../lib/money";
import { STAGES, isStage, stageLabel } from "../lib/stages";
import { MentionInput } from "./mention-input";

const t = th.teams;

type Props = {
  teamId: string;
  projectId: string;
  /** The row from the board while the item itself loads. */
  row?: PipelineItem;
  members: readonly Member[];
  me: string;
  canWrite: boolean;
  onClose: () => void;
};

/**
 * One pipeline item in a side drawer (full screen on a phone): stage,
 * owner, due date, bid price and note; the team's discussion with
 * @mentions; who changed what, newest first, in B.E. dates.
 */
export function ItemDrawer({ teamId, projectId, row, members, me, canWrite, onClose }: Props) {
  const id = useId();
  const q = usePipelineItem(teamId, projectId);
  const item = q.data ?? row;
  const closeRef = useRef<HTMLButtonElement>(null);
  const nameOf = (uid: string) => {
    const m = members.find((x) => x.userId === uid);
    return m ? m.name || m.username : "";
  };

  useEffect(() => {
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [onClose]);

  return (
    // eslint-disable-next-line jsx-a11y/no-static-element-interactions -- a press on the backdrop closes the drawer, for the mouse; keyboards have Escape and the close button
    <div className="drawer-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <aside className="drawer" role="dialog" aria-modal="true" aria-labelledby={`${id}-title`} data-testid="item-drawer" data-project-id={projectId}>
        <div className="drawer-head">
          <div>
            <p className="eyebrow">{t.itemTitle}</p>
            <h2 id={`${id}-title`}>{item?.projectName || projectId}</h2>
            {item && (
              <p className="small muted">
                {item.agency}
                {item.deadline && ` · ${t.deadline(formatIsoDateBE(item.deadline))}`}
              </p>
            )}
            <Link to={`/project-details/${encodeURIComponent(projectId)}`} className="small">
              {t.projectLink}
            </Link>
          </div>
          <button ref={closeRef} type="button" className="icon-btn" onClick={onClose} aria-label={th.common.close} data-testid="drawer-close">
            <IconClose size={20} />
          </button>
        </div>
        {!item ? (
          <p aria-busy="true">{th.common.loading}</p>
        ) : (
          <>
            <ItemForm key={`${item.updatedAt?.seconds ?? ""}`} teamId={teamId} item={item} members={members} canWrite={canWrite} onRemoved={onClose} />
            <Discussion teamId={teamId} projectId={projectId} members={members} me={me} canWrite={canWrite} />
            <History teamId={teamId} projectId={projectId} nameOf={nameOf} me={me} />
          </>
        )}
      </aside>
    </div>
  );
}

function ItemForm({ teamId, item, members, canWrite, onRemoved }: { teamId: string; item: PipelineItem; members: readonly Member[]; canWrite: boolean; onRemoved: () => void }) {
  const id = useId();
  const save = useSaveItem(teamId);
  const del = useDeleteItem(teamId);
  const [stage, setStage] = useState(item.stage);
  const [owner, setOwner] = useState(item.ownerUserId);
  const [due, setDue] = useState(formatIsoDateBE(item.dueDate));
  const bidOf = (s: string) => {
    const v = s ? parseSatang(s) : null;
    return v === null ? s : formatSatang(v);
  };
  const [bid, setBid] = useState(bidOf(item.bidPrice));
  const [note, setNote] = useState(item.note);
  const [errors, setErrors] = useState<{ due?: string; bid?: string }>({});

  const submit = () => {
    const patch: ItemPatch = {};
    const errs: { due?: string; bid?: string } = {};
    if (stage !== item.stage && isStage(stage)) patch.stage = stage;
    if (owner !== item.ownerUserId) patch.ownerUserId = owner;
    const dueIso = due.trim() === "" ? "" : parseThaiDateInput(due);
    if (dueIso === null) errs.due = t.dueInvalid;
    else if (dueIso !== item.dueDate) patch.dueDate = dueIso;
    const satang = bid.trim() === "" ? 0n : parseSatang(bid);
    if (satang === null || (bid.trim() !== "" && satang <= 0n)) errs.bid = t.bidInvalid;
    else {
      const text = bid.trim() === "" ? "" : formatSatang(satang).replace(/,/g, "");
      const before = item.bidPrice ? parseSatang(item.bidPrice) : null;
      if ((before ?? 0n) !== satang) patch.bidPrice = text;
    }
    if (note !== item.note) patch.note = note;
    setErrors(errs);
    if (errs.due || errs.bid) return;
    if (Object.keys(patch).length === 0) return toast.info(t.saved);
    save.mutate({ projectId: item.projectId, patch }, { onSuccess: () => toast.success(t.saved) });
  };

  return (
    <form
      className="form item-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <fieldset disabled={!canWrite} className="item-fields">
        <label className="field">
          <span className="field-label">{t.stageLabel}</span>
          <select value={stage} onChange={(e) => setStage(e.target.value)} data-testid="item-stage">
            {STAGES.map((s) => (
              <option key={s} value={s}>
                {stageLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">{t.ownerLabel}</span>
          <select value={owner} onChange={(e) => setOwner(e.target.value)} data-testid="item-owner">
            <option value="">{t.noOwner}</option>
            {members
              .filter((m) => m.role !== "viewer" || m.userId === owner)
              .map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.name || m.username} (@{m.username})
                </option>
              ))}
          </select>
        </label>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-due`}>
            {t.dueLabel}
          </label>
          <div className="field-control">
            <input
              id={`${id}-due`}
              value={due}
              placeholder={t.dueHint}
              autoComplete="off"
              onChange={(e) => setDue(e.target.value)}
              onBlur={() => {
                const iso = parseThaiDateInput(due);
                if (iso) setDue(formatIsoDateBE(iso));
              }}
              aria-invalid={errors.due ? true : undefined}
              aria-describedby={errors.due ? `${id}-due-err` : undefined}
              data-testid="item-due"
            />
          </div>
          {errors.due && (
            <p id={`${id}-due-err`} className="field-error">
              {errors.due}
            </p>
          )}
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-bid`}>
            {t.bidLabel}
          </label>
          <div className="field-control money-control">
            <input
              id={`${id}-bid`}
              value={bid}
              inputMode="decimal"
              autoComplete="off"
              onChange={(e) => setBid(e.target.value)}
              onBlur={() => {
                const s = parseSatang(bid);
                if (s !== null) setBid(formatSatang(s));
              }}
              aria-invalid={errors.bid ? true : undefined}
              aria-describedby={`${id}-bid-hint`}
              data-testid="item-bid"
            />
            <span className="money-unit" aria-hidden="true">
              {th.common.baht}
            </span>
          </div>
          <p id={`${id}-bid-hint`} className={errors.bid ? "field-error" : "field-hint"}>
            {errors.bid ?? t.bidHint}
          </p>
        </div>
        <label className="field">
          <span className="field-label">{t.noteLabel}</span>
          <textarea value={note} rows={3} maxLength={2000} placeholder={t.notePlaceholder} onChange={(e) => setNote(e.target.value)} data-testid="item-note" />
        </label>
      </fieldset>
      {canWrite && (
        <div className="item-actions">
          <Button type="submit" loading={save.isPending} data-testid="item-save">
            {t.save}
          </Button>
          <Button
            type="button"
            variant="ghost"
            loading={del.isPending}
            onClick={() => {
              if (window.confirm(t.removeConfirm))
                del.mutate(item.projectId, {
                  onSuccess: () => {
                    toast.success(t.removed);
                    onRemoved();
                  },
                });
            }}
            data-testid="item-remove"
          >
            {t.remove}
          </Button>
        </div>
      )}
    </form>
  );
}

function Discussion({ teamId, projectId, members, me, canWrite }: { teamId: string; projectId: string; members: readonly Member[]; me: string; canWrite: boolean }) {
  const comments = useItemComments(teamId, projectId);
  const add = useAddComment(teamId, projectId);
  const [text, setText] = useState("");
  const send = () => {
    const v = text.trim();
    if (!v || add.isPending) return;
    add.mutate(v, { onSuccess: () => setText("") });
  };
  return (
    <section className="drawer-section" aria-labelledby={`discussion-${projectId}`} data-testid="item-discussion">
      <h3 id={`discussion-${projectId}`}>{t.tabDiscussion}</h3>
      {comments.data && comments.data.length === 0 && <p className="muted small">{t.commentsEmpty}</p>}
      <ul className="comment-list">
        {comments.data?.map((c) => {
          const at = tsDate(c.createdAt);
          return (
            <li key={c.id} className="comment" data-testid="team-comment">
              <p className="comment-meta small">
                <strong>{c.userId === me ? t.you : `@${c.username}`}</strong>
                {at && <time dateTime={at.toISOString()}> · {formatThaiDate(at)} {at.toLocaleTimeString("th-TH", { hour: "2-digit", minute: "2-digit" })}</time>}
              </p>
              <p className="comment-text">
                {c.text.split(/(@[A-Za-z0-9._-]+)/g).map((part, i) =>
                  part.startsWith("@") && members.some((m) => `@${m.username}`.toLowerCase() === part.toLowerCase()) ? (
                    <mark key={i} className="mention">
                      {part}
                    </mark>
                  ) : (
                    part
                  ),
                )}
              </p>
            </li>
          );
        })}
      </ul>
      {canWrite && (
        <form
          className="form comment-form"
          onSubmit={(e) => {
            e.preventDefault();
            send();
          }}
        >
          <MentionInput label={t.commentLabel} value={text} onChange={setText} members={members} placeholder={t.commentPlaceholder} onSubmit={send} />
          <Button type="submit" size="sm" loading={add.isPending} disabled={!text.trim()} data-testid="comment-send">
            {t.commentSend}
          </Button>
        </form>
      )}
    </section>
  );
}

function History({ teamId, projectId, nameOf, me }: { teamId: string; projectId: string; nameOf: (uid: string) => string; me: string }) {
  const h = useItemHistory(teamId, projectId);
  return (
    <section className="drawer-section" aria-labelledby={`history-${projectId}`} data-testid="item-history">
      <h3 id={`history-${projectId}`}>{t.tabHistory}</h3>
      {h.data && h.data.length === 0 && <p className="muted small">{t.historyEmpty}</p>}
      <ol className="history-list">
        {h.data?.map((e, i) => {
          const at = tsDate(e.at);
          const who = actorName(e.userId, nameOf, me);
          return (
            <li key={i} className="history-entry small" data-testid="history-entry" data-field={e.field}>
              <span>
                <strong>{who}</strong> {fieldLabel(e.field, e.to)}
                {e.field !== "item" && (
                  <>
                    {": "}
                    <span className="muted">{fieldValue(e.field, e.from, nameOf)}</span> → <strong>{fieldValue(e.field, e.to, nameOf)}</strong>
                  </>
                )}
              </span>
              {at && (
                <time className="muted" dateTime={at.toISOString()}>
                  {formatThaiDate(at)} {at.toLocaleTimeString("th-TH", { hour: "2-digit", minute: "2-digit" })}
                </time>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

