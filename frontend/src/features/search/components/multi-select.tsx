import { useEffect, useId, useMemo, useRef, useState } from "react";
import { th } from "@/i18n/th";
import { IconChevronDown, IconClose, IconSearch } from "@/components/ui/icons";
import { normalizeKeyword } from "../lib/highlight";
import type { Option } from "../api/search-api";

const MAX_SHOWN = 150;

type Props = {
  label: string;
  options: Option[];
  values: string[];
  onChange: (values: string[]) => void;
  loading?: boolean;
  testId?: string;
};

/** Options whose Thai label (or code) contains the typed text, normalised like the search (Thai digits, ํา, case). */
export function filterOptions(options: Option[], query: string): Option[] {
  const q = normalizeKeyword(query);
  if (!q) return options;
  return options.filter((o) => normalizeKeyword(o.label).includes(q) || o.value.toLowerCase() === q);
}

/** A multi-select fed by GetDropdownData: Thai labels, type-to-filter, chips for what is chosen. */
export function MultiSelect({ label, options, values, onChange, loading, testId }: Props) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const rootRef = useRef<HTMLDivElement>(null);
  const filterRef = useRef<HTMLInputElement>(null);

  const labelOf = useMemo(() => new Map(options.map((o) => [o.value, o.label])), [options]);
  const shown = useMemo(() => filterOptions(options, query), [options, query]);

  useEffect(() => {
    if (!open) return;
    filterRef.current?.focus();
    const onDown = (e: MouseEvent) => {
      if (rootRef.current && !rootRef.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);

  const toggle = (v: string) => onChange(values.includes(v) ? values.filter((x) => x !== v) : [...values, v]);
  const summary =
    values.length === 0 ? th.search.selectAny : values.length === 1 ? (labelOf.get(values[0]) ?? values[0]) : th.search.selectedCount(values.length);

  return (
    // eslint-disable-next-line jsx-a11y/no-static-element-interactions -- catches Escape bubbling from the button and the panel's controls (all focusable natives) to close the panel; no role fits a wrapper
    <div
      className={`field ms${open ? " ms-open" : ""}`}
      ref={rootRef}
      data-testid={testId}
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          e.stopPropagation();
          setOpen(false);
        }
      }}
    >
      <span className="field-label" id={`${id}-label`}>
        {label}
      </span>
      <div className="ms-anchor">
        <button
          type="button"
          className={`ms-button${values.length ? " ms-has" : ""}`}
          aria-haspopup="true"
          aria-expanded={open}
          aria-labelledby={`${id}-label ${id}-value`}
          onClick={() => setOpen((o) => !o)}
        >
          <span id={`${id}-value`} className="ms-summary">
            {summary}
          </span>
          <IconChevronDown size={16} />
        </button>
        {open && (
          <div className="ms-panel" role="group" aria-label={label}>
            <div className="ms-filter">
              <IconSearch size={16} />
              <input
                ref={filterRef}
                value={query}
                onChange={(e) => setQuery(e.target.value)}
                placeholder={th.search.filterPlaceholder}
                aria-label={`${label}: ${th.search.filterPlaceholder}`}
                onKeyDown={(e) => {
                  if (e.key === "Enter") {
                    e.preventDefault();
                    if (shown.length === 1) toggle(shown[0].value);
                  }
                }}
              />
            </div>
            <div className="ms-list">
              {loading && <p className="ms-empty">{th.search.optionsLoading}</p>}
              {!loading && shown.length === 0 && <p className="ms-empty">{th.search.noOptions}</p>}
              {shown.slice(0, MAX_SHOWN).map((o) => (
                <label key={o.value} className="ms-option">
                  <input type="checkbox" checked={values.includes(o.value)} onChange={() => toggle(o.value)} />
                  <span>{o.label}</span>
                </label>
              ))}
              {shown.length > MAX_SHOWN && <p className="ms-more">{th.search.moreOptions(shown.length - MAX_SHOWN)}</p>}
            </div>
            <div className="ms-actions">
              <button type="button" className="btn btn-ghost btn-sm" onClick={() => onChange([])} disabled={values.length === 0}>
                {th.search.clearGroup}
              </button>
              <button type="button" className="btn btn-primary btn-sm" onClick={() => setOpen(false)}>
                {th.search.done}
              </button>
            </div>
          </div>
        )}
      </div>
      {values.length > 0 && (
        <div className="ms-chips">
          {values.map((v) => (
            <span key={v} className="tag tag-soft">
              <span className="tag-text">{labelOf.get(v) ?? v}</span>
              <button type="button" className="tag-remove" aria-label={th.search.removeTag(labelOf.get(v) ?? v)} onClick={() => toggle(v)}>
                <IconClose size={12} />
              </button>
            </span>
          ))}
        </div>
      )}
    </div>
  );
}
