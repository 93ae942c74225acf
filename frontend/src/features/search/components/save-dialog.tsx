import { useEffect, useId, useRef, useState } from "react";
import { Link } from "react-router";
import { th } from "@/i18n/th";
import { Button } from "@/components/ui/button";
import { IconClose } from "@/components/ui/icons";
import type { SearchType } from "../lib/criteria";

const TYPES: readonly SearchType[] = ["normal", "overnight"];

type Props = {
  open: boolean;
  saving: boolean;
  onClose: () => void;
  onConfirm: (v: { name: string; searchType: SearchType }) => void;
  /** Editing a saved search: its name and type fill the form, the button says บันทึกการแก้ไข. */
  editing?: { name: string; searchType: string } | null;
  /** Choices the plan closes, with the Thai reason shown under them (lib/limits lockedChoices). */
  locked?: Partial<Record<SearchType, string>>;
};

/**
 * Name the criteria and choose normal or overnight search (ToDoSearch's
 * search_type). A choice the plan has no room for is disabled, says why,
 * and links to the plans. Mount it per opening: name and type start from
 * `editing` (or empty and the first open choice).
 */
export function SaveCriteriaDialog({ open, saving, onClose, onConfirm, editing = null, locked = {} }: Props) {
  const id = useId();
  const [name, setName] = useState(editing?.name ?? "");
  const [type, setType] = useState<SearchType>(() => {
    const start: SearchType = editing?.searchType === "overnight" ? "overnight" : "normal";
    return locked[start] ? (TYPES.find((t) => !locked[t]) ?? start) : start;
  });
  const nameRef = useRef<HTMLInputElement>(null);
  const blocked = !!locked[type];

  useEffect(() => {
    if (!open) return;
    nameRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open, onClose]);

  if (!open) return null;
  const reasons = TYPES.filter((t) => locked[t]);
  return (
    // eslint-disable-next-line jsx-a11y/no-static-element-interactions -- a press on the backdrop closes the dialog, for the mouse; keyboards have Escape and the close button
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="modal card" role="dialog" aria-modal="true" aria-labelledby={`${id}-title`} data-testid="save-dialog">
        <div className="modal-head">
          <h2 id={`${id}-title`}>{editing ? th.savedSearch.editTitle : th.search.saveTitle}</h2>
          <button type="button" className="icon-btn" onClick={onClose} aria-label={th.common.close}>
            <IconClose size={18} />
          </button>
        </div>
        <p className="muted">{th.search.saveLead}</p>
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            if (!blocked) onConfirm({ name: name.trim(), searchType: type });
          }}
        >
          <div className="field">
            <label className="field-label" htmlFor={`${id}-name`}>
              {th.search.saveName} <span className="field-optional">({th.common.optional})</span>
            </label>
            <div className="field-control">
              <input id={`${id}-name`} ref={nameRef} value={name} maxLength={100} placeholder={th.search.saveNamePlaceholder} onChange={(e) => setName(e.target.value)} />
            </div>
          </div>
          <fieldset className="radio-group" aria-describedby={reasons.length > 0 ? `${id}-locked` : undefined}>
            <legend className="field-label">{th.search.saveType}</legend>
            {TYPES.map((t) => (
              <label key={t} className={`radio-card${type === t ? " checked" : ""}${locked[t] ? " disabled" : ""}`}>
                <input type="radio" name={`${id}-type`} value={t} checked={type === t} disabled={!!locked[t]} onChange={() => !locked[t] && setType(t)} />
                <span>{t === "normal" ? th.search.saveNormal : th.search.saveOvernight}</span>
              </label>
            ))}
          </fieldset>
          {reasons.length > 0 && (
            <div id={`${id}-locked`} className="plan-limit-note" role="note" data-testid="save-locked">
              {reasons.map((t) => (
                <p key={t} data-testid={`save-locked-${t}`}>
                  {locked[t]}
                </p>
              ))}
              <Link to="/user-settings/pricing" data-testid="save-locked-plans">
                {th.savedSearch.seePlans}
              </Link>
            </div>
          )}
          <div className="modal-actions">
            <Button type="button" variant="ghost" onClick={onClose}>
              {th.common.cancel}
            </Button>
            <Button type="submit" loading={saving} disabled={blocked} data-testid="save-confirm">
              {saving ? th.search.saving : editing ? th.savedSearch.saveEdit : th.search.saveConfirm}
            </Button>
          </div>
        </form>
      </div>
    </div>
  );
}
