import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { Code, ConnectError } from "@connectrpc/connect";
import { getClient } from "@/lib/clients";
import { queryKeys } from "@/lib/query-keys";
import { errorMessage, errorReason, isLimitReached, serverMessage } from "@/lib/errors";
import { ProjectsService } from "@/gen/projects/v1/projects_pb";
import { msg, th } from "@/i18n/th";
import { toast } from "@/stores/toast-store";
import { toListRequest, toToDoSearchRequest, toUpdateRequest, type Criteria, type SearchState, type SearchType } from "../lib/criteria";

const projects = () => getClient(ProjectsService);

/**
 * GetDropdownData: every list of the criteria form; entries with an empty value or label dropped
 * (docs/product.md#dropdown-data).
 */
export function useDropdownData() {
  return useQuery({
    queryKey: queryKeys.projects.dropdownData(),
    queryFn: async () => {
      const res = await projects().getDropdownData({});
      const clean = (xs: { value: string; label: string }[]) =>
        xs.filter((o) => o.value.trim() !== "" && o.label.trim() !== "").map((o) => ({ value: o.value, label: o.label }));
      return {
        announceTypes: clean(res.announceTypes),
        methods: clean(res.methods),
        provinces: clean(res.provinces),
        ministries: clean(res.ministries),
        departments: clean(res.departments),
        subDepartments: clean(res.subDepartments),
        statuses: clean(res.statuses),
        strategies: clean(res.strategies),
        categories: clean(res.categories),
        budgetYears: clean(res.budgetYears),
      };
    },
    staleTime: 30 * 60_000,
    gcTime: 60 * 60_000,
  });
}

export type DropdownData = NonNullable<ReturnType<typeof useDropdownData>["data"]>;
export type Option = { value: string; label: string };

type ListRequest = ReturnType<typeof toListRequest>;

/** Two requests that find the same projects (they differ at most in page, page size and order). */
function sameMatches(a: ListRequest, b: ListRequest): boolean {
  const scope = (r: ListRequest) => JSON.stringify({ ...r, page: 0, perPage: 0, sort: "" });
  return scope(a) === scope(b);
}

/**
 * ListProjects for the state in the URL; the previous rows stay on screen
 * while the next ones load. Their count stays only for another page or
 * order of the same search: another search's total (an estimate, say) is
 * not this one's, so it is dropped until the answer comes.
 */
export function useProjectSearch(state: SearchState, signedIn = false) {
  const req = toListRequest(state, signedIn);
  return useQuery({
    queryKey: queryKeys.projects.list(req),
    queryFn: ({ signal }) => projects().listProjects(req, { signal }),
    placeholderData: (prev, prevQuery) => {
      if (!prev) return undefined;
      const prevReq = prevQuery?.queryKey[2];
      return prevReq && sameMatches(prevReq, req) ? prev : { ...prev, pagination: undefined };
    },
    staleTime: 30_000,
  });
}

export const LIMIT_INFO_DELAY_MS = 2000;

/** A search's name as the service keeps it (spaces collapsed); empty when the service names it. */
const cleanName = (name = "") => name.split(/\s+/).filter(Boolean).join(" ");

/** The saved search's name in the user's list, or "" (the list could not be read). */
async function savedName(qc: QueryClient, criteriaId: string): Promise<string> {
  try {
    const list = await qc.fetchQuery({ queryKey: queryKeys.projects.savedCriteria(), queryFn: () => projects().recallSaveCriteria({}) });
    return list.criteria.find((c) => c.criteriaId === criteriaId)?.name ?? "";
  } catch {
    return "";
  }
}

/**
 * The toasts for a ToDoSearch answer ('Limit reached' is the catalogue's own text:
 * docs/product.md#search-saves-and-status-indicators).
 * Success names the search, not its id: the name typed, else the one the
 * service gave it (a summary of the criteria), read back from the list. No
 * emoji: the toast has its icon, and ✅ has no glyph in the Thai fonts.
 */
export async function notifySaved(qc: QueryClient, res: { message: string; criteriaId: string; detail: string }, typedName?: string): Promise<void> {
  if (res.detail.includes("Limit reached") && !res.criteriaId) {
    notifyLimit(res.detail);
    return;
  }
  const name = cleanName(typedName) || (await savedName(qc, res.criteriaId));
  toast.success(name ? th.search.savedToast(name) : res.message);
}

/** '⚠️ {detail}', then after 2 s what to do: the reason's Thai (a full plan: delete or upgrade), else the catalogue's text (try tomorrow). */
function notifyLimit(detail: string, info?: string | null): void {
  toast.warning(`⚠️ ${detail}`);
  setTimeout(
    () => toast.info(info ?? msg("Your search limit has been reached. Please try again tomorrow or consider upgrading your plan.")),
    LIMIT_INFO_DELAY_MS,
  );
}

/**
 * docs/product.md#search-saves-and-status-indicators: 'Limit reached' (reason
 * limit-reached) → warning with the server's detail (the subscription service
 * writes it for users: which limit, in Thai), then info after 2 s; another 409
 * → its message; else the generic failure.
 */
export function notifySaveError(err: unknown): void {
  const e = ConnectError.from(err);
  if (isLimitReached(e)) {
    const full = errorReason(e) === "saved-search-limit";
    notifyLimit(e.rawMessage.trim() || (serverMessage(e) ?? ""), full ? serverMessage(e) : null);
    return;
  }
  // Connect maps HTTP 409 to already_exists (and aborted): an identical
  // search, a change meanwhile; 403 is a kind the plan does not include.
  const known = e.code === Code.AlreadyExists || e.code === Code.Aborted || e.code === Code.PermissionDenied ? serverMessage(e) : null;
  toast.error(known ?? msg("❌ Failed to save search criteria. Please try again."));
}

/** A save or an edit changes the list and what is left of the plan. */
function afterSave(qc: QueryClient) {
  void qc.invalidateQueries({ queryKey: queryKeys.projects.savedCriteria() });
  void qc.invalidateQueries({ queryKey: queryKeys.subscription.mine() });
}

export function useSaveCriteria() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { criteria: Criteria; searchType: SearchType; name?: string }) =>
      projects().toDoSearch(toToDoSearchRequest(v.criteria, v.searchType, v.name)),
    onSuccess: (res, v) => {
      afterSave(qc);
      void notifySaved(qc, res, v.name);
    },
    onError: (err) => {
      notifySaveError(err);
      // A full plan refused (saved elsewhere meanwhile): the list and the plan are stale.
      if (errorReason(err) === "saved-search-limit") afterSave(qc);
    },
  });
}

/** The user's saved searches (RecallSaveCriteria without an id), newest first. */
export function useSavedCriteria(enabled = true) {
  return useQuery({
    queryKey: queryKeys.projects.savedCriteria(),
    queryFn: ({ signal }) => projects().recallSaveCriteria({}, { signal }),
    enabled,
  });
}

/**
 * UpdateSearchCriteria: the saved search replaced; refusals toast as a save's do
 * (docs/product.md#search-saves-and-status-indicators).
 */
export function useUpdateCriteria() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: string; criteria: Criteria; searchType: SearchType; name?: string }) =>
      projects().updateSearchCriteria(toUpdateRequest(v.id, v.criteria, v.searchType, v.name)),
    onSuccess: (res) => {
      toast.success(res.criteria?.name ? th.savedSearch.editedToast(res.criteria.name) : res.message);
      afterSave(qc);
    },
    // A limit as a save's; else the reason's Thai (gone, changed meanwhile, bad input).
    onError: (err) =>
      isLimitReached(err) ? notifySaveError(err) : toast.error(errorMessage(err, "❌ Failed to save search criteria. Please try again.")),
  });
}
