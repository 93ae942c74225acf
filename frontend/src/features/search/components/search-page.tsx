import { useEffect, useEffectEvent, useMemo, useRef, useState } from "react";
import { useLocation, useNavigate, useSearchParams } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { formatNumber } from "@/lib/format";
import { CLOSING_WEEK_DAYS } from "@/lib/deadline";
import { Button } from "@/components/ui/button";
import { IconAlert, IconSearch } from "@/components/ui/icons";
import { selectUser, useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { useDropdownData, useProjectSearch, useSaveCriteria, useSavedCriteria, useUpdateCriteria } from "../api/search-api";
import {
  countActive,
  EDIT_PARAM,
  emptyCriteria,
  fromSaved,
  parseSearchParams,
  PER_PAGE_OPTIONS,
  positiveKeywords,
  SORTS,
  toSearchParams,
  type Criteria,
  type SearchState,
  type SearchType,
  type Sort,
  type View,
} from "../lib/criteria";
import { CriteriaForm } from "./criteria-form";
import { Pagination } from "./pagination";
import { ResultRow, ResultsSkeleton, totalLabel } from "./results";
import { SaveCriteriaDialog } from "./save-dialog";
import { ListingFilterBar, toggleFilter } from "@/features/interests";
import { useMySubscription } from "@/features/payment";
import { lockedChoices, normalRoom, overnightRoom } from "../lib/limits";
import { wantsSaveOnArrival } from "../lib/first-step";
import "../search.css";

/** The phone layout of the page (search.css switches to one column there). */
const PHONE_QUERY = "(max-width: 640px)";
const matches = (q: string) => typeof window.matchMedia === "function" && window.matchMedia(q).matches;

/**
 * After a search from the form: on a touch screen the keyboard closes (the
 * focus leaves the form), and on a phone, where the form fills the screen,
 * the results section (its count and first rows) scrolls into view.
 */
function revealResults(section: HTMLElement | null) {
  if (!section) return;
  const active = document.activeElement;
  if (active instanceof HTMLElement && matches("(pointer: coarse)") && active.closest("form[role=search]")) active.blur();
  if (!matches(PHONE_QUERY)) return;
  section.scrollIntoView({ behavior: matches("(prefers-reduced-motion: reduce)") ? "auto" : "smooth", block: "start" });
}

/**
 * /search, open to visitors (docs/product.md#search-layout): criteria form, results, pagination;
 * all state in the URL.
 */
export function SearchPage() {
  usePageTitle(th.titles.search);
  const [params, setParams] = useSearchParams();
  const state = useMemo(() => parseSearchParams(params), [params]);
  const navigate = useNavigate();
  const location = useLocation();
  const user = useAuthStore(selectUser);
  const dropdowns = useDropdownData();
  const results = useProjectSearch(state, !!user);
  const save = useSaveCriteria();
  const update = useUpdateCriteria();
  const saved = useSavedCriteria(!!user);
  const [saveFor, setSaveFor] = useState<Criteria | null>(null);
  const resultsRef = useRef<HTMLElement>(null);
  // Counts the searches run from the form: each one reveals the results once rendered.
  const [submits, setSubmits] = useState(0);
  useEffect(() => {
    if (submits > 0) revealResults(resultsRef.current);
  }, [submits]);
  // ?criteria=<id>: a saved search being edited (from the settings page).
  const editId = params.get(EDIT_PARAM) ?? "";
  const editing = (editId && saved.data?.criteria.find((c) => c.criteriaId === editId)) || null;

  const go = (next: SearchState, opts: { scroll?: boolean } = {}) => {
    const sp = toSearchParams(next);
    if (editId) sp.set(EDIT_PARAM, editId);
    setParams(sp);
    if (opts.scroll) resultsRef.current?.scrollIntoView({ behavior: "smooth", block: "start" });
  };

  const stopEditing = () => {
    const sp = new URLSearchParams(params);
    sp.delete(EDIT_PARAM);
    setParams(sp, { replace: true });
  };

  // Opening an edit loads the saved criteria into the form once; a URL that
  // already carries criteria (a reload mid-edit) keeps them.
  const loadedEdit = useRef("");
  const loadEdit = useEffectEvent(() => {
    if (!editId || loadedEdit.current === editId) return;
    if (!user) {
      loadedEdit.current = editId;
      toast.info(th.search.saveLoginHint);
      void navigate("/login", { state: { from: `${location.pathname}${location.search}` } });
      return;
    }
    if (!saved.data) return;
    loadedEdit.current = editId;
    const found = saved.data.criteria.find((c) => c.criteriaId === editId);
    if (!found) {
      toast.error(th.savedSearch.editNotFound);
      stopEditing();
      return;
    }
    if (countActive(state.criteria) > 0) return;
    const sp = toSearchParams({ ...state, criteria: fromSaved(found.criteria), page: 1 });
    sp.set(EDIT_PARAM, editId);
    setParams(sp, { replace: true });
  });
  useEffect(() => {
    loadEdit();
  }, [editId, saved.data, user]);

  // From the first step: its criteria go straight into the save dialog, once
  // (the router state is dropped, so a reload or Back does not reopen it).
  const offerSave = useEffectEvent(() => {
    if (!wantsSaveOnArrival(location.state)) return;
    void navigate({ pathname: location.pathname, search: location.search }, { replace: true, state: null });
    if (user && countActive(state.criteria) > 0) setSaveFor(state.criteria);
  });
  useEffect(() => {
    offerSave();
  }, [location.key]);

  const onConfirm = ({ name, searchType }: { name: string; searchType: SearchType }) => {
    if (!saveFor) return;
    if (editing) {
      update.mutate(
        { id: editing.criteriaId, criteria: saveFor, searchType, name },
        {
          onSuccess: () => {
            setSaveFor(null);
            void navigate("/user-settings/search-criteria");
          },
        },
      );
      return;
    }
    save.mutate({ criteria: saveFor, searchType, name }, { onSuccess: () => setSaveFor(null) });
  };

  const onSave = (c: Criteria) => {
    if (!user) {
      toast.info(th.search.saveLoginHint);
      void navigate("/login", { state: { from: `${location.pathname}${location.search}` } });
      return;
    }
    setSaveFor(c);
  };

  const data = results.data;
  const pag = data?.pagination;
  const rows = data?.data ?? [];
  const total = pag ? Number(pag.total) : 0;
  const estimate = pag?.totalIsEstimate ?? false;
  const from = (state.page - 1) * state.perPage + 1;
  const fallbackKeywords = positiveKeywords(state.criteria);

  return (
    <div className="search-page">
      <header className="search-hero">
        <h1>{th.titles.search}</h1>
        <p className="lead">{th.search.lead}</p>
      </header>

      {editing && (
        <div className="edit-banner" data-testid="edit-banner">
          <span>{th.savedSearch.editing(editing.name)}</span>
          <Button type="button" variant="ghost" size="sm" onClick={stopEditing} data-testid="edit-cancel">
            {th.savedSearch.cancelEdit}
          </Button>
        </div>
      )}

      <CriteriaForm
        applied={state.criteria}
        dropdowns={dropdowns.data}
        dropdownsLoading={dropdowns.isPending}
        onSubmit={(c) => {
          go({ ...state, criteria: c, page: 1 });
          setSubmits((n) => n + 1);
        }}
        onSave={onSave}
        saving={save.isPending || update.isPending}
        saveLabel={editing ? th.savedSearch.saveEdit : th.search.save}
      />

      <section className="results-section" ref={resultsRef} aria-label={th.search.resultsRegion} aria-busy={results.isFetching}>
        {user && (
          <ListingFilterBar
            filters={state.filters}
            onToggle={(k) => {
              const next = toggleFilter(state.filters, k);
              // docs/product.md#listing-filters: archive on clears the keyword too.
              const criteria = next.keyword ? state.criteria : { ...state.criteria, or: [], and: [], not: [] };
              go({ ...state, criteria, filters: { ...next, keyword: true }, page: 1 });
            }}
          />
        )}
        <div className="results-toolbar">
          <div className="results-count" aria-live="polite" data-testid="results-count">
            {pag ? (
              <>
                <strong>{totalLabel(total, estimate)}</strong>
                {rows.length > 0 && (
                  <span className="muted"> · {th.search.showing(formatNumber(from), formatNumber(from + rows.length - 1))}</span>
                )}
              </>
            ) : results.isPending || results.isPlaceholderData ? (
              <span className="sk sk-count" />
            ) : null}
          </div>
          <div className="results-controls">
            <label className="control">
              <span>{th.search.sortLabel}</span>
              <select value={state.sort} onChange={(e) => go({ ...state, sort: e.target.value as Sort, page: 1 })} data-testid="sort-select">
                {SORTS.map((s) => (
                  <option key={s} value={s}>
                    {th.search.sorts[s]}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              className={`filter-chip${state.closingDays ? " filter-chip-on" : ""}`}
              aria-pressed={!!state.closingDays}
              title={th.deadlines.closingWeekHint}
              onClick={() => go({ ...state, closingDays: state.closingDays ? 0 : CLOSING_WEEK_DAYS, page: 1 })}
              data-testid="closing-week"
            >
              {th.deadlines.closingWeek}
            </button>
            <label className="control">
              <span>{th.search.perPage}</span>
              <select value={state.perPage} onChange={(e) => go({ ...state, perPage: Number(e.target.value), page: 1 })} data-testid="per-page-select">
                {PER_PAGE_OPTIONS.map((n) => (
                  <option key={n} value={n}>
                    {th.search.perPageOption(n)}
                  </option>
                ))}
              </select>
            </label>
            <div className="segmented" role="group" aria-label={th.search.view}>
              {(["short", "long"] as View[]).map((v) => (
                <button
                  key={v}
                  type="button"
                  className={state.view === v ? "active" : ""}
                  aria-pressed={state.view === v}
                  onClick={() => go({ ...state, view: v })}
                  data-testid={`view-${v}`}
                >
                  {v === "short" ? th.search.viewShort : th.search.viewLong}
                </button>
              ))}
            </div>
          </div>
        </div>

        {results.isError && !data ? (
          <div className="state-card state-error" role="alert" data-testid="search-error">
            <IconAlert size={28} />
            <h2>{th.search.errorTitle}</h2>
            <p>{errorMessage(results.error, "Failed to fetch data")}</p>
            <Button variant="secondary" onClick={() => void results.refetch()}>
              {th.search.retry}
            </Button>
          </div>
        ) : results.isPending ? (
          <ResultsSkeleton rows={state.perPage} />
        ) : rows.length === 0 ? (
          <div className="state-card" data-testid="search-empty">
            <span className="state-icon">
              <IconSearch size={28} />
            </span>
            <h2>{th.search.emptyTitle}</h2>
            <p className="muted">{th.search.emptyLead}</p>
            <ul className="tips">
              {th.search.emptyTips.map((t) => (
                <li key={t}>{t}</li>
              ))}
            </ul>
            {countActive(state.criteria) > 0 && (
              <Button variant="secondary" onClick={() => go({ ...state, criteria: emptyCriteria(), page: 1 })}>
                {th.search.reset}
              </Button>
            )}
          </div>
        ) : (
          <>
            {results.isError && (
              <p className="form-error" role="alert">
                {errorMessage(results.error, "Failed to fetch data")}
              </p>
            )}
            <ul className={`results${results.isPlaceholderData ? " results-stale" : ""}`} data-testid="results">
              {rows.map((p) => (
                <ResultRow key={p.projectId} p={p} view={state.view} fallbackKeywords={fallbackKeywords} loggedIn={!!user} />
              ))}
            </ul>
            {pag && (
              <Pagination
                page={state.page}
                totalPages={pag.totalPages}
                hasNext={pag.hasNext}
                onPage={(p) => go({ ...state, page: p }, { scroll: true })}
              />
            )}
          </>
        )}
      </section>

      {user && (
        <PlanGatedSaveDialog
          open={saveFor !== null}
          saving={save.isPending || update.isPending}
          editing={editing}
          savedTypes={saved.data?.criteria.map((c) => c.searchType)}
          onClose={() => setSaveFor(null)}
          onConfirm={onConfirm}
        />
      )}
    </div>
  );
}

/**
 * The save dialog with the plan's limits applied
 * (docs/product.md#tiers-and-plan-limits: gating from combination_limits).
 * Mounted for signed-in users only, so the plan loads with the page (visitors
 * would get a 401); the dialog itself mounts per opening.
 */
function PlanGatedSaveDialog(props: {
  open: boolean;
  saving: boolean;
  editing: { name: string; searchType: string } | null;
  savedTypes: string[] | undefined;
  onClose: () => void;
  onConfirm: (v: { name: string; searchType: SearchType }) => void;
}) {
  const { open, savedTypes, editing, ...rest } = props;
  const sub = useMySubscription();
  const l = sub.data?.combinationLimits;
  const limits = l && { searchCombination: l.searchCombination, overnightSearchSave: l.overnightSearchSave, normalSearchSave: l.normalSearchSave };
  const locked = lockedChoices(limits, overnightRoom(limits, savedTypes), editing, normalRoom(limits, savedTypes));
  if (!open) return null;
  return <SaveCriteriaDialog open editing={editing} locked={locked} {...rest} />;
}
