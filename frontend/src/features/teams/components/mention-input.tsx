import { useId, useRef, useState, type KeyboardEvent } from "react";
import { th } from "@/i18n/th";
import { insertMention, mentionAt, mentionCandidates, type MentionQuery, type Mentionable } from "../lib/mentions";

const t = th.teams;

type Props = {
  label: string;
  value: string;
  onChange: (v: string) => void;
  members: readonly Mentionable[];
  placeholder?: string;
  maxLength?: number;
  disabled?: boolean;
  /** Ctrl/Cmd+Enter sends. */
  onSubmit?: () => void;
};

/**
 * A comment box with @mention autocomplete of the team's members: typing
 * "@" and letters lists the members whose username or name fits; arrows
 * move, Enter or Tab puts "@username " in, Escape closes (a combobox with a
 * listbox, so screen readers follow the choice).
 */
export function MentionInput({ label, value, onChange, members, placeholder, maxLength = 2000, disabled, onSubmit }: Props) {
  const id = useId();
  const ref = useRef<HTMLTextAreaElement>(null);
  const [query, setQuery] = useState<MentionQuery | null>(null);
  const [active, setActive] = useState(0);
  const options = query ? mentionCandidates(members, query.query) : [];
  const open = options.length > 0;

  const sync = (el: HTMLTextAreaElement) => {
    const q = mentionAt(el.value, el.selectionStart ?? el.value.length);
    setQuery(q);
    setActive(0);
  };
  const choose = (m: Mentionable) => {
    if (!query) return;
    const next = insertMention(value, query, m.username);
    onChange(next.text);
    setQuery(null);
    requestAnimationFrame(() => {
      const el = ref.current;
      if (!el) return;
      el.focus();
      el.setSelectionRange(next.caret, next.caret);
    });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (open) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const step = e.key === "ArrowDown" ? 1 : -1;
        setActive((a) => (a + step + options.length) % options.length);
        return;
      }
      if (e.key === "Enter" || e.key === "Tab") {
        e.preventDefault();
        choose(options[Math.min(active, options.length - 1)]);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        setQuery(null);
        return;
      }
    }
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && onSubmit) {
      e.preventDefault();
      onSubmit();
    }
  };

  return (
    <div className="mention-input field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <textarea
        id={id}
        ref={ref}
        role="combobox"
        aria-expanded={open}
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        aria-activedescendant={open ? `${id}-opt-${active}` : undefined}
        value={value}
        rows={3}
        maxLength={maxLength}
        placeholder={placeholder}
        disabled={disabled}
        data-testid="comment-text"
        onChange={(e) => {
          onChange(e.target.value);
          sync(e.target);
        }}
        onKeyDown={onKeyDown}
        onClick={(e) => sync(e.currentTarget)}
        onBlur={() => setTimeout(() => setQuery(null), 150)}
      />
      <ul id={`${id}-list`} role="listbox" aria-label={t.mentionList} className="mention-list" hidden={!open} data-testid="mention-list">
        {options.map((m, i) => (
          <li
            key={m.username}
            id={`${id}-opt-${i}`}
            role="option"
            aria-selected={i === active}
            className={i === active ? "active" : undefined}
            data-testid="mention-option"
            onMouseDown={(e) => {
              e.preventDefault();
              choose(m);
            }}
          >
            <strong>@{m.username}</strong> <span className="muted small">{m.name}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
