import { describe, expect, it } from "vitest";
import { defaultState, emptyCriteria, isProjectId, parseSearchParams, toListRequest, toSearchParams, toToDoSearchRequest, type SearchState } from "./criteria";

describe("search state ↔ query string", () => {
  const full: SearchState = {
    criteria: {
      ...emptyCriteria(),
      or: ["ถนน", "คอมพิวเตอร์"],
      and: ["คอนกรีต"],
      not: ["ซ่อมแซม"],
      projectIds: ["69099722203"],
      announceTypes: ["D0", "W0"],
      methods: ["16"],
      provinces: ["41"],
      departments: ["กรมทางหลวง"],
      subDepartments: ["กองช่าง"],
      statuses: ["open"],
      strategies: ["2"],
      categories: ["02"],
      ministries: ["07"],
      budgetYears: ["2569"],
      dateFrom: "2026-10-01",
      dateTo: "2026-11-21",
      moneyMin: 500000,
      moneyMax: 12500000.5,
    },
    page: 3,
    perPage: 20,
    view: "long",
    sort: "budget",
    filters: { bid: false, archived: false, like: true, comment: false, follow: "fill20", keyword: true },
  };

  it("round-trips every criterion, page, per_page, view and sort", () => {
    const sp = toSearchParams(full);
    expect(sp.getAll("keyWord_Incl_Or")).toEqual(["ถนน", "คอมพิวเตอร์"]);
    expect(sp.get("annouSDate_User")).toBe("2026-10-01");
    expect(sp.get("projectMoneyE_User")).toBe("12500000.5");
    expect(parseSearchParams(new URLSearchParams(sp.toString()))).toEqual(full);
  });

  it("leaves defaults out of the URL and reads an empty URL as defaults", () => {
    expect(toSearchParams(defaultState()).toString()).toBe("");
    expect(parseSearchParams(new URLSearchParams(""))).toEqual(defaultState());
  });

  it("ignores garbage: bad page, per_page, view, sort, dates, ids and amounts", () => {
    const s = parseSearchParams(
      new URLSearchParams("page=-2&per_page=33&view=grid&sort=x&annouSDate_User=21/11/2569&project_id_User=123&projectMoneyS_User=abc"),
    );
    expect(s).toEqual(defaultState());
  });

  it("keeps the deadline order and closing this week in the URL, as the REST names", () => {
    const s = { ...defaultState(), sort: "deadline" as const, closingDays: 7 };
    const sp = toSearchParams(s);
    expect(sp.toString()).toBe("sort=deadline&closing_within_days=7");
    expect(parseSearchParams(sp)).toEqual(s);
    expect(toListRequest(s)).toMatchObject({ sort: "deadline", closingWithinDays: 7 });
    expect(parseSearchParams(new URLSearchParams("closing_within_days=0")).closingDays).toBeUndefined();
    expect(parseSearchParams(new URLSearchParams("closing_within_days=abc")).closingDays).toBeUndefined();
  });

  it("accepts comma-separated code lists and Thai-digit project ids", () => {
    const s = parseSearchParams(new URLSearchParams("province_User=10,41&project_id_User=๖๙๐๙๙๗๒๒๒๐๓"));
    expect(s.criteria.provinces).toEqual(["10", "41"]);
    expect(s.criteria.projectIds).toEqual(["69099722203"]);
  });

  it("builds the ListProjects and ToDoSearch requests with the spec's fields", () => {
    const req = toListRequest(full);
    expect(req).toMatchObject({
      page: 3,
      perPage: 20,
      sort: "budget",
      keyWordInclOr: ["ถนน", "คอมพิวเตอร์"],
      keyWordInclAnd: ["คอนกรีต"],
      keyWordExclNor: ["ซ่อมแซม"],
      annouTypeUserRequired: ["D0", "W0"],
      deptSubProvinceUser: ["กองช่าง"],
      provinceUser: ["41"],
      annouSDateUser: "2026-10-01",
      projectMoneySUser: 500000,
      budgetYearUser: ["2569"],
    });
    expect(toListRequest(defaultState()).projectMoneySUser).toBeUndefined();
    expect(toToDoSearchRequest(full.criteria, "overnight", "งานถนน")).toMatchObject({ searchType: "overnight", name: "งานถนน", typeTranUser: ["02"] });
  });

  it("validates 11-digit project ids", () => {
    expect(isProjectId("69099722203")).toBe(true);
    expect(isProjectId("6909972220")).toBe(false);
    expect(isProjectId("690-997-222-03")).toBe(true);
    expect(isProjectId("6909972220x")).toBe(false);
  });
});
