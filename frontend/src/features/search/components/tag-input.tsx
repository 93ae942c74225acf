import { useId, useState, type ClipboardEvent, type KeyboardEvent } from "react";
import { th } from "@/i18n/th";
import { FieldFrame, fieldDescribedBy } from "@/components/ui/field-frame";
import { IconClose } from "@/components/ui/icons";

type Props = {
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  /** Text typed but not yet turned into a tag; the form commits it on submit. */
  draft: string;
  onDraftChange: (draft: string) => void;
  placeholder?: string;
  /** Returns the cleaned value, or an error message. */
  validate?: (raw: string) => { value: string } | { error: string };
  tone?: "default" | "and" | "not";
  large?: boolean;
  /** Enter adds the typed text and lets the form submit (the main search bar). */
  submitOnEnter?: boolean;
  testId?: string;
};

/** Split typed or pasted text into tags: commas, semicolons and new lines separate. */
export function splitTags(text: string): string[] {
  return text
    .split(/[,;\n\r]+/)
    .map((t) => t.trim().replace(/\s+/g, " "))
    .filter(Boolean);
}

/** Add raw entries to a tag list; returns the new list and the first validation error. */
export function addTags(
  values: string[],
  raw: string[],
  validate?: Props["validate"],
): { values: string[]; error: string | null; rejected: string[] } {
  const out = [...values];
  let error: string | null = null;
  const rejected: string[] = [];
  for (const r of raw) {
    const v = validate ? validate(r) : { value: r };
    if ("error" in v) {
      error ??= v.error;
      rejected.push(r);
      continue;
    }
    if (!out.includes(v.value)) out.push(v.value);
  }
  return { values: out, error, rejected };
}

/**
 * A keyword / id tag input (selection groups, docs/product.md#search-criteria): Enter or comma
 * adds, Backspace removes the last.
 */
export function TagInput({ label, values, onChange, draft, onDraftChange, placeholder, validate, tone = "default", large, submitOnEnter, testId }: Props) {
  const id = useId();
  const [error, setError] = useState<string | null>(null);

  const commit = (raw: string) => {
    const r = addTags(values, splitTags(raw), validate);
    setError(r.error);
    if (r.values.length !== values.length) onChange(r.values);
    onDraftChange(r.rejected.join(", "));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.nativeEvent.isComposing) return;
    if ((e.key === "Enter" && draft.trim()) || e.key === ",") {
      if (!(submitOnEnter && e.key === "Enter")) e.preventDefault();
      commit(draft);
    } else if (e.key === "Backspace" && draft === "" && values.length > 0) {
      onChange(values.slice(0, -1));
    }
  };

  const onPaste = (e: ClipboardEvent<HTMLInputElement>) => {
    const text = e.clipboardData.getData("text");
    if (/[,;\n]/.test(text)) {
      e.preventDefault();
      commit(`${draft},${text}`);
    }
  };

  return (
    <FieldFrame id={id} label={label} error={error} className={`tag-field tag-${tone}${large ? " tag-large" : ""}`} testId={testId}>
      {/* eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-static-element-interactions -- a click on the box's padding focuses its input, for the mouse; keyboards Tab to the input itself */}
      <div className="tag-box" onClick={(e) => e.currentTarget.querySelector("input")?.focus()}>
        {values.map((v) => (
          <span key={v} className="tag" data-testid="tag">
            <span className="tag-text">{v}</span>
            <button
              type="button"
              className="tag-remove"
              aria-label={th.search.removeTag(v)}
              onClick={(e) => {
                e.stopPropagation();
                onChange(values.filter((x) => x !== v));
              }}
            >
              <IconClose size={12} />
            </button>
          </span>
        ))}
        <input
          id={id}
          value={draft}
          placeholder={values.length === 0 ? placeholder : undefined}
          onChange={(e) => {
            setError(null);
            const v = e.target.value;
            if (v.includes(",")) commit(v);
            else onDraftChange(v);
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          onBlur={() => draft.trim() && commit(draft)}
          aria-invalid={error ? true : undefined}
          aria-describedby={fieldDescribedBy(id, error)}
          enterKeyHint="search"
        />
      </div>
    </FieldFrame>
  );
}
