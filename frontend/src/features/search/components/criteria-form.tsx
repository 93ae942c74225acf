import { useEffect, useEffectEvent, useState, type FormEvent, type MouseEvent } from "react";
import { th } from "@/i18n/th";
import { Button } from "@/components/ui/button";
import { IconFilter, IconSearch } from "@/components/ui/icons";
import { MoneyInput } from "@/components/ui/money-input";
import { cleanProjectId, countActive, DROPDOWN_OF, emptyCriteria, isProjectId, type Criteria, type ListKey } from "../lib/criteria";
import type { DropdownData } from "../api/search-api";
import { addTags, splitTags, TagInput } from "./tag-input";
import { MultiSelect } from "./multi-select";
import { BeDateInput } from "./date-input";
import "../search.css";

type TagKey = "or" | "and" | "not" | "projectIds";
type Drafts = Record<TagKey, string>;
const noDrafts = (): Drafts => ({ or: "", and: "", not: "", projectIds: "" });

const validateProjectId = (raw: string) =>
  isProjectId(raw) ? { value: cleanProjectId(raw) } : { error: th.search.projectIdInvalid(raw) };

/** The form's multi-selects, in the order a bid manager scans them. */
const SELECT_GROUPS: ListKey[] = [
  "announceTypes",
  "methods",
  "categories",
  "statuses",
  "provinces",
  "ministries",
  "departments",
  "subDepartments",
  "strategies",
  "budgetYears",
];

/**
 * A press on the form's buttons leaves the focus where it is. Moving it would
 * blur a keyword box first, turning its text into a tag: the box can grow a
 * line and move the button before the release lands (on a phone the tap then
 * does nothing). The submit commits the typed text itself.
 */
const keepFocus = (e: MouseEvent) => e.preventDefault();

function advancedCount(c: Criteria): number {
  return countActive(c) - c.or.length - c.and.length - c.not.length;
}

/** Text still in a tag box becomes tags (what the user typed before pressing ค้นหา counts). */
export function commitDrafts(c: Criteria, drafts: Drafts): { criteria: Criteria; rejected: string[] } {
  const next = { ...c };
  let rejected: string[] = [];
  for (const k of Object.keys(drafts) as TagKey[]) {
    if (!drafts[k].trim()) continue;
    const r = addTags(c[k], splitTags(drafts[k]), k === "projectIds" ? validateProjectId : undefined);
    next[k] = r.values;
    if (k === "projectIds") rejected = r.rejected;
  }
  return { criteria: next, rejected };
}

type Props = {
  applied: Criteria;
  dropdowns: DropdownData | undefined;
  dropdownsLoading: boolean;
  onSubmit: (c: Criteria) => void;
  /** Without it, no save button (the market page filters, it saves nothing). */
  onSave?: (c: Criteria) => void;
  /** Criteria this form leaves out (the market's benchmarks take fewer filters than search). */
  omit?: readonly ListKey[];
  saving?: boolean;
  /** The save button's text (บันทึกการแก้ไข while editing a saved search). */
  saveLabel?: string;
};

/**
 * The criteria form (docs/product.md#search-criteria): keyword groups, project ids, multi-selects,
 * B.E. dates, budget year and range.
 */
export function CriteriaForm({ applied, dropdowns, dropdownsLoading, onSubmit, onSave, omit = [], saving, saveLabel = th.search.save }: Props) {
  const [draft, setDraft] = useState<Criteria>(applied);
  const [drafts, setDrafts] = useState<Drafts>(noDrafts);
  const [showAdvanced, setShowAdvanced] = useState(() => advancedCount(applied) > 0);
  const [errors, setErrors] = useState<{ date?: string; money?: string }>({});

  // Back/forward and pasted links change the applied criteria: the form follows.
  // Any change of the URL (page, sort, ...) parses a new criteria object:
  // the form follows the criteria's value (appliedKey), not the object, so
  // paging or sorting leaves a half-edited form alone.
  const appliedKey = JSON.stringify(applied);
  const followApplied = useEffectEvent(() => {
    setDraft(applied);
    setDrafts(noDrafts());
    setErrors({});
    if (advancedCount(applied) > 0) setShowAdvanced(true);
  });
  useEffect(() => {
    followApplied();
  }, [appliedKey]);

  const set = <K extends keyof Criteria>(k: K, v: Criteria[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const setDraftText = (k: TagKey) => (v: string) => setDrafts((d) => ({ ...d, [k]: v }));

  const validated = (): Criteria | null => {
    const { criteria: c, rejected } = commitDrafts(draft, drafts);
    const errs: typeof errors = {};
    if (c.dateFrom && c.dateTo && c.dateFrom > c.dateTo) errs.date = th.search.dateOrder;
    if (c.moneyMin !== null && c.moneyMax !== null && c.moneyMin > c.moneyMax) errs.money = th.search.moneyOrder;
    setErrors(errs);
    setDraft(c);
    setDrafts({ ...noDrafts(), projectIds: rejected.join(", ") });
    if (errs.date || errs.money || rejected.length > 0) {
      setShowAdvanced(true);
      return null;
    }
    return c;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const c = validated();
    if (c) onSubmit(c);
  };

  const nAdvanced = advancedCount(draft);
  return (
    <form className="criteria card" onSubmit={submit} role="search" aria-label={th.search.title} data-testid="criteria-form">
      <div className="criteria-main">
        <TagInput
          label={th.search.orLabel}
          values={draft.or}
          onChange={(v) => set("or", v)}
          draft={drafts.or}
          onDraftChange={setDraftText("or")}
          placeholder={th.search.orPlaceholder}
          large
          submitOnEnter
          testId="kw-or"
        />
        <Button type="submit" size="lg" icon={<IconSearch size={20} />} className="criteria-submit" onMouseDown={keepFocus} data-testid="search-submit">
          {th.search.submit}
        </Button>
      </div>
      <div className="criteria-grid criteria-keywords">
        <TagInput
          label={th.search.andLabel}
          values={draft.and}
          onChange={(v) => set("and", v)}
          draft={drafts.and}
          onDraftChange={setDraftText("and")}
          placeholder={th.search.andPlaceholder}
          tone="and"
          testId="kw-and"
        />
        <TagInput
          label={th.search.notLabel}
          values={draft.not}
          onChange={(v) => set("not", v)}
          draft={drafts.not}
          onDraftChange={setDraftText("not")}
          placeholder={th.search.notPlaceholder}
          tone="not"
          testId="kw-not"
        />
      </div>
      <p className="field-hint criteria-hint">{th.search.tagHint}</p>

      <button
        type="button"
        className="criteria-toggle"
        aria-expanded={showAdvanced}
        aria-controls="criteria-advanced"
        onClick={() => setShowAdvanced((s) => !s)}
        data-testid="advanced-toggle"
      >
        <IconFilter size={18} />
        <span>{showAdvanced ? th.search.hideAdvanced : th.search.advanced}</span>
        {nAdvanced > 0 && <span className="count-badge">{th.search.activeFilters(nAdvanced)}</span>}
      </button>

      <div id="criteria-advanced" className="criteria-advanced" hidden={!showAdvanced}>
        <div className="criteria-grid">
          {!omit.includes("projectIds") && (
          <TagInput
            label={th.search.projectIdsLabel}
            values={draft.projectIds}
            onChange={(v) => set("projectIds", v)}
            draft={drafts.projectIds}
            onDraftChange={setDraftText("projectIds")}
            placeholder={th.search.projectIdsPlaceholder}
            validate={validateProjectId}
            testId="project-ids"
          />
          )}
          {SELECT_GROUPS.filter((k) => !omit.includes(k)).map((k) => (
            <MultiSelect
              key={k}
              label={th.search.groups[k]}
              options={dropdowns?.[DROPDOWN_OF[k]!] ?? []}
              values={draft[k]}
              onChange={(v) => set(k, v)}
              loading={dropdownsLoading}
              testId={`ms-${k}`}
            />
          ))}
        </div>
        <div className="criteria-grid criteria-ranges">
          <BeDateInput label={th.search.dateFrom} value={draft.dateFrom} onChange={(v) => set("dateFrom", v)} error={errors.date} testId="date-from" />
          <BeDateInput label={th.search.dateTo} value={draft.dateTo} onChange={(v) => set("dateTo", v)} testId="date-to" />
          <MoneyInput
            label={th.search.moneyMin}
            value={draft.moneyMin}
            onChange={(v) => set("moneyMin", v)}
            error={errors.money}
            placeholder={th.search.moneyPlaceholder}
            testId="money-min"
          />
          <MoneyInput label={th.search.moneyMax} value={draft.moneyMax} onChange={(v) => set("moneyMax", v)} placeholder={th.search.moneyPlaceholder} testId="money-max" />
        </div>
      </div>

      <div className="criteria-actions">
        <Button
          type="button"
          variant="ghost"
          onClick={() => {
            setDraft(emptyCriteria());
            setDrafts(noDrafts());
            setErrors({});
            onSubmit(emptyCriteria());
          }}
          disabled={countActive(draft) === 0 && countActive(applied) === 0}
          onMouseDown={keepFocus}
          data-testid="criteria-reset"
        >
          {th.search.reset}
        </Button>
        {onSave && (
          <Button
            type="button"
            variant="secondary"
            loading={saving}
            onClick={() => {
              const c = validated();
              if (c) onSave(c);
            }}
            onMouseDown={keepFocus}
            data-testid="save-criteria"
          >
            {saveLabel}
          </Button>
        )}
      </div>
    </form>
  );
}
