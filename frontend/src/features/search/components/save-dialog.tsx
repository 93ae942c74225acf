import { useEffect, useId, useRef, useState } from "react";
import { th } from "@/i18n/th";
import { Button } from "@/components/ui/button";
import { IconClose } from "@/components/ui/icons";
import type { SearchType } from "../lib/criteria";

type Props = {
  open: boolean;
  saving: boolean;
  onClose: () => void;
  onConfirm: (v: { name: string; searchType: SearchType }) => void;
};

/** Name the criteria and choose normal or overnight search (ToDoSearch's search_type). */
export function SaveCriteriaDialog({ open, saving, onClose, onConfirm }: Props) {
  const id = useId();
  const [name, setName] = useState("");
  const [type, setType] = useState<SearchType>("normal");
  const nameRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!open) return;
    nameRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open, onClose]);

  if (!open) return null;
  return (
    // eslint-disable-next-line jsx-a11y/no-static-element-interactions -- a press on the backdrop closes the dialog, for the mouse; keyboards have Escape and the close button
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="modal card" role="dialog" aria-modal="true" aria-labelledby={`${id}-title`} data-testid="save-dialog">
        <div className="modal-head">
          <h2 id={`${id}-title`}>{th.search.saveTitle}</h2>
          <button type="button" className="icon-btn" onClick={onClose} aria-label={th.common.close}>
            <IconClose size={18} />
          </button>
        </div>
        <p className="muted">{th.search.saveLead}</p>
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            onConfirm({ name: name.trim(), searchType: type });
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
          <fieldset className="radio-group">
            <legend className="field-label">{th.search.saveType}</legend>
            {(["normal", "overnight"] as const).map((t) => (
              <label key={t} className={`radio-card${type === t ? " checked" : ""}`}>
                <input type="radio" name={`${id}-type`} value={t} checked={type === t} onChange={() => setType(t)} />
                <span>{t === "normal" ? th.search.saveNormal : th.search.saveOvernight}</span>
              </label>
            ))}
          </fieldset>
          <div className="modal-actions">
            <Button type="button" variant="ghost" onClick={onClose}>
              {th.common.cancel}
            </Button>
            <Button type="submit" loading={saving} data-testid="save-confirm">
              {saving ? th.search.saving : th.search.saveConfirm}
            </Button>
          </div>
        </form>
      </div>
    </div>
  );
}
