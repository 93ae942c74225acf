import { filtersFromParams, filtersToParams, filtersToRequest, noFilters, type ListingFilters } from "@/features/interests";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  Criteria as SavedPayload,
  GetDropdownDataResponse,
  ListProjectsRequestSchema,
  ToDoSearchRequestSchema,
  UpdateSearchCriteriaRequestSchema,
} from "@/gen/projects/v1/projects_pb";
import { thaiDigitsToAscii } from "@/lib/format";

/**
 * The search criteria (docs/product.md#search-criteria) as the form holds them,
 * and their round trip through the query string (the spec's own field names),
 * so a search is a shareable URL: reload, back/forward and a pasted link give
 * the same results.
 */
export type Criteria = {
  or: string[];
  and: string[];
  not: string[];
  projectIds: string[];
  announceTypes: string[];
  methods: string[];
  provinces: string[];
  departments: string[];
  subDepartments: string[];
  statuses: string[];
  strategies: string[];
  categories: string[];
  ministries: string[];
  budgetYears: string[];
  /** ISO Gregorian dates (YYYY-MM-DD); shown and typed in the Buddhist era. */
  dateFrom: string;
  dateTo: string;
  /** Baht. */
  moneyMin: number | null;
  moneyMax: number | null;
};

export type ListKey = Exclude<keyof Criteria, "dateFrom" | "dateTo" | "moneyMin" | "moneyMax">;
export type View = "short" | "long";
export type Sort = "date" | "budget" | "relevance" | "deadline";

/**
 * closingDays > 0 keeps the projects whose last day to submit bids is today
 * or within the next closingDays - 1 days (7: "closing this week"); a
 * listing filter (closing_within_days), never part of a saved search.
 */
export type SearchState = { criteria: Criteria; page: number; perPage: number; view: View; sort: Sort; filters: ListingFilters; closingDays?: number };

export const PER_PAGE_OPTIONS = [10, 20, 50] as const;
export const DEFAULT_PER_PAGE = 10;
export const SORTS: readonly Sort[] = ["date", "budget", "relevance", "deadline"];

export const emptyCriteria = (): Criteria => ({
  or: [],
  and: [],
  not: [],
  projectIds: [],
  announceTypes: [],
  methods: [],
  provinces: [],
  departments: [],
  subDepartments: [],
  statuses: [],
  strategies: [],
  categories: [],
  ministries: [],
  budgetYears: [],
  dateFrom: "",
  dateTo: "",
  moneyMin: null,
  moneyMax: null,
});

export const defaultState = (): SearchState => ({ criteria: emptyCriteria(), page: 1, perPage: DEFAULT_PER_PAGE, view: "short", sort: "date", filters: noFilters() });

/**
 * Form list ↔ query parameter (the payload names of docs/product.md#search-criteria; province_User
 * and ministry_User are ours).
 */
export const LIST_PARAMS: ReadonlyArray<[ListKey, string]> = [
  ["or", "keyWord_Incl_Or"],
  ["and", "keyWord_Incl_And"],
  ["not", "keyWord_Excl_Nor"],
  ["projectIds", "project_id_User"],
  ["announceTypes", "annouType_User_required"],
  ["methods", "method_User_required"],
  ["provinces", "province_User"],
  ["departments", "dept_User"],
  ["subDepartments", "deptSubProvince_User"],
  ["statuses", "projectStatus_User"],
  ["strategies", "govStrategy_User"],
  ["categories", "typeTran_User"],
  ["ministries", "ministry_User"],
  ["budgetYears", "budgetYear_User"],
];

/** Which GetDropdownData list feeds each multi-select. */
export const DROPDOWN_OF: Partial<Record<ListKey, keyof Pick<GetDropdownDataResponse,
  "announceTypes" | "methods" | "provinces" | "ministries" | "departments" | "subDepartments" | "statuses" | "strategies" | "categories" | "budgetYears">>> = {
  announceTypes: "announceTypes",
  methods: "methods",
  provinces: "provinces",
  departments: "departments",
  subDepartments: "subDepartments",
  statuses: "statuses",
  strategies: "strategies",
  categories: "categories",
  ministries: "ministries",
  budgetYears: "budgetYears",
};

const KEYWORD_KEYS: ReadonlySet<ListKey> = new Set(["or", "and", "not"]);

/** An e-GP project id: 11 digits (Thai digits accepted and folded). */
export const PROJECT_ID = /^\d{11}$/;
export function cleanProjectId(s: string): string {
  return thaiDigitsToAscii(s).replace(/[\s-]/g, "");
}
export function isProjectId(s: string): boolean {
  return PROJECT_ID.test(cleanProjectId(s));
}

const ISO = /^\d{4}-\d{2}-\d{2}$/;

function uniq(xs: string[]): string[] {
  return [...new Set(xs)];
}

function readList(sp: URLSearchParams, key: ListKey, param: string): string[] {
  const raw = sp.getAll(param).map((v) => v.trim()).filter(Boolean);
  if (KEYWORD_KEYS.has(key)) return uniq(raw.map((v) => v.replace(/\s+/g, " ")));
  // Code lists may also come comma-separated (as the REST API accepts them).
  const parts = raw.flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
  if (key === "projectIds") return uniq(parts.map(cleanProjectId).filter((v) => PROJECT_ID.test(v)));
  return uniq(parts);
}

function readMoney(v: string | null): number | null {
  if (v === null || v.trim() === "") return null;
  const n = Number(thaiDigitsToAscii(v).replace(/,/g, ""));
  return Number.isFinite(n) && n >= 0 ? n : null;
}

function readInt(v: string | null, fallback: number): number {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 ? n : fallback;
}

export function parseSearchParams(sp: URLSearchParams): SearchState {
  const c = emptyCriteria();
  for (const [key, param] of LIST_PARAMS) c[key] = readList(sp, key, param);
  const from = sp.get("annouSDate_User") ?? "";
  const to = sp.get("annouEDate_User") ?? "";
  c.dateFrom = ISO.test(from) ? from : "";
  c.dateTo = ISO.test(to) ? to : "";
  c.moneyMin = readMoney(sp.get("projectMoneyS_User"));
  c.moneyMax = readMoney(sp.get("projectMoneyE_User"));
  const perPage = Number(sp.get("per_page"));
  const view = sp.get("view");
  const sort = sp.get("sort") as Sort | null;
  const closingDays = readClosingDays(sp.get("closing_within_days"));
  return {
    criteria: c,
    page: readInt(sp.get("page"), 1),
    perPage: (PER_PAGE_OPTIONS as readonly number[]).includes(perPage) ? perPage : DEFAULT_PER_PAGE,
    view: view === "long" ? "long" : "short",
    sort: sort && SORTS.includes(sort) ? sort : "date",
    filters: filtersFromParams(sp),
    ...(closingDays > 0 ? { closingDays } : {}),
  };
}

function readClosingDays(v: string | null): number {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 && n <= 366 ? n : 0;
}

/** The query string of a search: only what differs from the defaults, in a stable order. */
export function toSearchParams(s: SearchState): URLSearchParams {
  const sp = new URLSearchParams();
  const c = s.criteria;
  for (const [key, param] of LIST_PARAMS) for (const v of c[key]) sp.append(param, v);
  if (c.dateFrom) sp.set("annouSDate_User", c.dateFrom);
  if (c.dateTo) sp.set("annouEDate_User", c.dateTo);
  if (c.moneyMin !== null) sp.set("projectMoneyS_User", String(c.moneyMin));
  if (c.moneyMax !== null) sp.set("projectMoneyE_User", String(c.moneyMax));
  if (s.page !== 1) sp.set("page", String(s.page));
  if (s.perPage !== DEFAULT_PER_PAGE) sp.set("per_page", String(s.perPage));
  if (s.sort !== "date") sp.set("sort", s.sort);
  if (s.view !== "short") sp.set("view", s.view);
  if (s.filters) filtersToParams(s.filters, sp);
  if (s.closingDays) sp.set("closing_within_days", String(s.closingDays));
  return sp;
}

/** The protobuf criteria fields shared by ListProjects and ToDoSearch. */
function criteriaFields(c: Criteria) {
  return {
    keyWordInclOr: c.or,
    keyWordInclAnd: c.and,
    keyWordExclNor: c.not,
    annouTypeUserRequired: c.announceTypes,
    deptUser: c.departments,
    deptSubProvinceUser: c.subDepartments,
    methodUserRequired: c.methods,
    typeTranUser: c.categories,
    govStrategyUser: c.strategies,
    projectIdUser: c.projectIds,
    annouSDateUser: c.dateFrom,
    annouEDateUser: c.dateTo,
    projectMoneySUser: c.moneyMin ?? undefined,
    projectMoneyEUser: c.moneyMax ?? undefined,
    projectStatusUser: c.statuses,
    budgetYearUser: c.budgetYears,
    provinceUser: c.provinces,
    ministryUser: c.ministries,
  };
}

/** The ListProjects request; the listing filters only for a signed-in user (visitors would get 401). */
export function toListRequest(s: SearchState, signedIn = false): MessageInitShape<typeof ListProjectsRequestSchema> {
  const filters = signedIn && s.filters ? filtersToRequest(s.filters) : {};
  return { page: s.page, perPage: s.perPage, sort: s.sort, closingWithinDays: s.closingDays ?? 0, ...criteriaFields(s.criteria), ...filters };
}

export type SearchType = "normal" | "overnight";

export function toToDoSearchRequest(c: Criteria, searchType: SearchType, name = ""): MessageInitShape<typeof ToDoSearchRequestSchema> {
  return { searchType, name, ...criteriaFields(c) };
}

/** The edit of a saved criteria (UpdateSearchCriteria): every field replaced. */
export function toUpdateRequest(id: string, c: Criteria, searchType: SearchType, name = ""): MessageInitShape<typeof UpdateSearchCriteriaRequestSchema> {
  return { criteriaId: id, searchType, name, criteria: criteriaFields(c) };
}

/** A saved criteria's payload (RecallSaveCriteria) in the form's shape. */
export function fromSaved(p: SavedPayload | undefined): Criteria {
  const c = emptyCriteria();
  if (!p) return c;
  return {
    ...c,
    or: [...p.keyWordInclOr],
    and: [...p.keyWordInclAnd],
    not: [...p.keyWordExclNor],
    projectIds: [...p.projectIdUser],
    announceTypes: [...p.annouTypeUserRequired],
    methods: [...p.methodUserRequired],
    provinces: [...p.provinceUser],
    departments: [...p.deptUser],
    subDepartments: [...p.deptSubProvinceUser],
    statuses: [...p.projectStatusUser],
    strategies: [...p.govStrategyUser],
    categories: [...p.typeTranUser],
    ministries: [...p.ministryUser],
    budgetYears: [...p.budgetYearUser],
    dateFrom: p.annouSDateUser,
    dateTo: p.annouEDateUser,
    moneyMin: p.projectMoneySUser ?? null,
    moneyMax: p.projectMoneyEUser ?? null,
  };
}

/** The search page with a saved criteria loaded for editing. */
export const EDIT_PARAM = "criteria";
export function editHref(id: string): string {
  return `/search?${new URLSearchParams({ [EDIT_PARAM]: id }).toString()}`;
}

/** How many criteria are set (for the filter badge and the empty-state hint). */
export function countActive(c: Criteria): number {
  let n = 0;
  for (const [key] of LIST_PARAMS) n += c[key].length;
  if (c.dateFrom) n++;
  if (c.dateTo) n++;
  if (c.moneyMin !== null) n++;
  if (c.moneyMax !== null) n++;
  return n;
}

/** The keywords worth highlighting when the server sent no matched_keywords. */
export function positiveKeywords(c: Criteria): string[] {
  return [...c.or, ...c.and];
}
