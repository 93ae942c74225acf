import { afterEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser, type Call, type Reply } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { msg, th } from "@/i18n/th";
import { reasons } from "@/i18n/reasons";

const dropdowns = {
  announceTypes: [
    { value: "D0", label: "ประกาศเชิญชวน" },
    { value: "W0", label: "ประกาศรายชื่อผู้ชนะการเสนอราคา" },
  ],
  methods: [{ value: "16", label: "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)" }],
  provinces: [
    { value: "10", label: "กรุงเทพมหานคร" },
    { value: "41", label: "อุดรธานี" },
    { value: "", label: "ว่าง" },
  ],
  ministries: [{ value: "07", label: "กระทรวงคมนาคม" }],
  departments: [{ value: "กรมทางหลวง", label: "กรมทางหลวง" }],
  subDepartments: [{ value: "กองช่าง", label: "กองช่าง" }],
  statuses: [{ value: "open", label: "ประกาศเชิญชวน" }],
  strategies: [{ value: "2", label: "ด้านการสร้างความสามารถในการแข่งขัน" }],
  categories: [{ value: "02", label: "จ้างก่อสร้าง" }],
  budgetYears: [{ value: "2569", label: "ปีงบประมาณ 2569" }],
};

function row(i: number, extra: Record<string, unknown> = {}) {
  return {
    projectId: String(69110000000 + i),
    projectName: `จ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก หมู่ที่ ๔ ประจำปีงบประมาณ ๒๕๖๙ รายการ ${i}`,
    deptName: "องค์การบริหารส่วนตำบลหนองบัว",
    deptSubName: "กองช่าง",
    provinceName: "อุดรธานี",
    announceType: "D0",
    announceTypeName: "ประกาศเชิญชวน",
    announceDate: "2026-11-21",
    budget: 4850000,
    status: "open",
    statusName: "ประกาศเชิญชวน",
    matchedKeywords: ["ถนน", "2569"],
    ...extra,
  };
}

function listReply(call: Call, opts: { total?: number; estimate?: boolean } = {}) {
  const page = Number(call.body.page ?? 1);
  const perPage = Number(call.body.perPage ?? 10);
  const total = opts.total ?? 45;
  const count = Math.max(0, Math.min(perPage, total - (page - 1) * perPage));
  const totalPages = Math.ceil(total / perPage);
  return {
    json: {
      data: Array.from({ length: count }, (_, k) => row((page - 1) * perPage + k + 1)),
      pagination: { page, perPage, total: String(total), totalIsEstimate: !!opts.estimate, totalPages, hasNext: page < totalPages, hasPrev: page > 1 },
    },
  };
}

function backend(list: (c: Call) => Reply = (c) => listReply(c), extra = {}) {
  const be = createFakeBackend({
    "ProjectsService/GetDropdownData": () => ({ json: dropdowns }),
    "ProjectsService/ListProjects": list,
    ...extra,
  });
  be.install();
  return be;
}

const lastList = (be: ReturnType<typeof backend>) => [...be.calls].reverse().find((c) => c.method === "ListProjects")!;

afterEach(() => vi.useRealTimers());

describe("/search: criteria form ↔ URL", () => {
  it("reads every criterion from the URL into the form and the request", async () => {
    const be = backend();
    renderApp(
      "/search?keyWord_Incl_Or=ถนน&keyWord_Incl_And=คอนกรีต&keyWord_Excl_Nor=ซ่อม&project_id_User=69099722203&province_User=41&annouType_User_required=D0&annouSDate_User=2026-10-01&annouEDate_User=2026-11-21&projectMoneyS_User=500000&budgetYear_User=2569&page=2&per_page=20&sort=budget&view=long",
    );
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    const req = lastList(be).body;
    expect(req).toMatchObject({
      page: 2,
      perPage: 20,
      sort: "budget",
      keyWordInclOr: ["ถนน"],
      keyWordInclAnd: ["คอนกรีต"],
      keyWordExclNor: ["ซ่อม"],
      projectIdUser: ["69099722203"],
      provinceUser: ["41"],
      annouTypeUserRequired: ["D0"],
      annouSDateUser: "2026-10-01",
      annouEDateUser: "2026-11-21",
      projectMoneySUser: 500000,
      budgetYearUser: ["2569"],
    });
    // Shown in Thai: B.E. dates, grouped baht, Thai labels.
    expect(screen.getByTestId<HTMLInputElement>("date-from").value).toBe("1 ต.ค. 2569");
    expect(screen.getByTestId<HTMLInputElement>("date-to").value).toBe("21 พ.ย. 2569");
    expect(screen.getByTestId<HTMLInputElement>("money-min").value).toBe("500,000");
    await waitFor(() => expect(within(screen.getByTestId("ms-provinces")).getAllByText("อุดรธานี").length).toBeGreaterThan(0));
    expect(within(screen.getByTestId("kw-or")).getByText("ถนน")).toBeTruthy();
    expect(screen.getByTestId<HTMLSelectElement>("sort-select").value).toBe("budget");
    expect(screen.getByTestId("view-long").getAttribute("aria-pressed")).toBe("true");
  });

  it("submitting writes the criteria to the URL; back restores the earlier search", async () => {
    const be = backend();
    const { router } = renderApp("/search");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    const or = within(screen.getByTestId("kw-or")).getByRole("textbox");
    fireEvent.change(or, { target: { value: "คอมพิว" } });
    fireEvent.keyDown(or, { key: "Enter" });
    fireEvent.change(within(screen.getByTestId("kw-not")).getByRole("textbox"), { target: { value: "ซ่อมแซม" } });
    fireEvent.click(screen.getByTestId("advanced-toggle"));
    fireEvent.change(screen.getByTestId("date-from"), { target: { value: "1/10/2569" } });
    fireEvent.blur(screen.getByTestId("date-from"));
    expect(screen.getByTestId<HTMLInputElement>("date-from").value).toBe("1 ต.ค. 2569");
    fireEvent.change(screen.getByTestId("money-max"), { target: { value: "12500000" } });
    expect(screen.getByTestId<HTMLInputElement>("money-max").value).toBe("12,500,000");
    fireEvent.click(within(screen.getByTestId("ms-provinces")).getByRole("button", { expanded: false }));
    // type-to-filter with the search's folding; entries with an empty value are dropped
    const filter = screen.getByPlaceholderText(th.search.filterPlaceholder);
    fireEvent.change(filter, { target: { value: "อุดร" } });
    expect(screen.queryByRole("checkbox", { name: "กรุงเทพมหานคร" })).toBeNull();
    expect(screen.queryByText("ว่าง")).toBeNull();
    fireEvent.click(screen.getByRole("checkbox", { name: "อุดรธานี" }));
    await act(async () => {
      fireEvent.click(screen.getByTestId("search-submit"));
    });
    await waitFor(() => expect(router.state.location.search).not.toBe(""));
    const sp = new URLSearchParams(router.state.location.search);
    expect(sp.getAll("keyWord_Incl_Or")).toEqual(["คอมพิว"]);
    expect(sp.getAll("keyWord_Excl_Nor")).toEqual(["ซ่อมแซม"]);
    expect(sp.get("annouSDate_User")).toBe("2026-10-01");
    expect(sp.get("projectMoneyE_User")).toBe("12500000");
    expect(sp.getAll("province_User")).toEqual(["41"]);
    await waitFor(() => expect(lastList(be).body).toMatchObject({ keyWordInclOr: ["คอมพิว"], provinceUser: ["41"], projectMoneyEUser: 12500000 }));

    await act(async () => {
      await router.navigate(-1);
    });
    await waitFor(() => expect(router.state.location.search).toBe(""));
    await waitFor(() => expect(within(screen.getByTestId("kw-or")).queryByText("คอมพิว")).toBeNull());
    expect(screen.getByTestId<HTMLInputElement>("date-from").value).toBe("");
    await act(async () => {
      await router.navigate(1);
    });
    await waitFor(() => expect(within(screen.getByTestId("kw-or")).getByText("คอมพิว")).toBeTruthy());
  });

  it("refuses a project id that is not 11 digits", async () => {
    backend();
    renderApp("/search");
    fireEvent.click(await screen.findByTestId("advanced-toggle", {}, { timeout: 5000 }));
    const ids = within(screen.getByTestId("project-ids")).getByRole("textbox");
    fireEvent.change(ids, { target: { value: "12345" } });
    fireEvent.keyDown(ids, { key: "Enter" });
    expect(within(screen.getByTestId("project-ids")).getByRole("alert").textContent).toBe(th.search.projectIdInvalid("12345"));
    fireEvent.change(ids, { target: { value: "๖๙๐๙๙๗๒๒๒๐๓" } });
    fireEvent.keyDown(ids, { key: "Enter" });
    expect(within(screen.getByTestId("project-ids")).getByText("69099722203")).toBeTruthy();
  });
});

describe("/search: results", () => {
  it("highlights the matched keywords, also over Thai digits, and links rows to the details", async () => {
    backend();
    renderApp("/search?keyWord_Incl_Or=ถนน&keyWord_Incl_Or=2569");
    const rows = await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    expect(rows).toHaveLength(10);
    const marks = [...rows[0].querySelectorAll("mark")].map((m) => m.textContent);
    expect(marks).toEqual(["ถนน", "๒๕๖๙"]);
    expect(within(rows[0]).getByTestId("result-title").getAttribute("href")).toBe("/project-details/69110000001");
    expect(within(rows[0]).getByTestId("result-budget").textContent).toBe("4,850,000.00 บาท");
    expect(within(rows[0]).getByText("21 พ.ย. 2569")).toBeTruthy();
  });

  it("counts, page numbers and per-page; pages go to the URL", async () => {
    const be = backend();
    const { router } = renderApp("/search");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    expect(screen.getByTestId("results-count").textContent).toContain("พบ 45 รายการ");
    expect(screen.getByTestId("results-count").textContent).toContain("แสดงรายการที่ 1–10");
    expect(screen.getByTestId("page-1").getAttribute("aria-current")).toBe("page");
    expect(screen.getByTestId("page-5")).toBeTruthy();
    await act(async () => {
      fireEvent.click(screen.getByTestId("page-next"));
    });
    await waitFor(() => expect(router.state.location.search).toBe("?page=2"));
    await waitFor(() => expect(screen.getByTestId("results-count").textContent).toContain("แสดงรายการที่ 11–20"));
    await act(async () => {
      fireEvent.change(screen.getByTestId("per-page-select"), { target: { value: "50" } });
    });
    await waitFor(() => expect(router.state.location.search).toBe("?per_page=50"));
    await waitFor(() => expect(lastList(be).body).toMatchObject({ perPage: 50 }));
    await waitFor(() => expect(screen.getAllByTestId("result-row")).toHaveLength(45));
    expect(screen.queryByTestId("pagination")).toBeNull();
  });

  it("an estimated total reads 'ประมาณ 30,000 รายการ'", async () => {
    backend((c) => listReply(c, { total: 30000, estimate: true }));
    renderApp("/search?keyWord_Incl_Or=ก&page=7");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    expect(screen.getByTestId("results-count").textContent).toContain("ประมาณ 30,000 รายการ");
    expect(screen.getByTestId("results-count").textContent).toContain("แสดงรายการที่ 61–70");
    expect(screen.getByTestId("page-3000")).toBeTruthy();
    expect(screen.getByTestId("page-7").getAttribute("aria-current")).toBe("page");
  });

  it("an exact total, however large, never reads 'ประมาณ'", async () => {
    backend((c) => listReply(c, { total: 30000, estimate: false }));
    renderApp("/search?keyWord_Incl_Or=ก");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    expect(screen.getByTestId("results-count").textContent).toContain("30,000 รายการ");
    expect(screen.getByTestId("results-count").textContent).not.toContain("ประมาณ");
  });

  it("while another search loads, the count is not the previous search's estimate", async () => {
    let release!: () => void;
    const be = backend((c) => {
      if (!(c.body.keyWordInclOr as string[] | undefined)?.includes("คอมพิวเตอร์")) return listReply(c, { total: 1800, estimate: true });
      return new Promise((ok) => (release = () => ok(listReply(c, { total: 142 }))));
    });
    const { router } = renderApp("/search?keyWord_Incl_Or=จ้าง");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    expect(screen.getByTestId("results-count").textContent).toContain("ประมาณ 1,800 รายการ");
    // Another page of the same search keeps its count while it loads.
    await act(async () => {
      fireEvent.click(screen.getByTestId("page-next"));
    });
    await waitFor(() => expect(router.state.location.search).toContain("page=2"));
    expect(screen.getByTestId("results-count").textContent).toContain("ประมาณ 1,800 รายการ");
    await waitFor(() => expect(screen.getByTestId("results-count").textContent).toContain("แสดงรายการที่ 11–20"));

    const or = within(screen.getByTestId("kw-or")).getByRole("textbox");
    fireEvent.change(or, { target: { value: "คอมพิวเตอร์" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("search-submit"));
    });
    await waitFor(() => expect(lastList(be).body).toMatchObject({ keyWordInclOr: ["จ้าง", "คอมพิวเตอร์"] }));
    // The old rows stay (dimmed) while the new search loads; its count is not known yet.
    expect(screen.getAllByTestId("result-row").length).toBeGreaterThan(0);
    expect(screen.getByTestId("results-count").textContent).not.toContain("ประมาณ");
    await act(async () => release());
    await waitFor(() => expect(screen.getByTestId("results-count").textContent).toContain("พบ 142 รายการ"));
    expect(screen.getByTestId("results-count").textContent).not.toContain("ประมาณ");
  });

  it("short view by default, long view shows method, prices and the e-GP link", async () => {
    backend((c) => ({ json: { ...listReply(c).json, data: [row(1, { methodName: "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)", referencePrice: 4812500, egpUrl: "https://process5.gprocurement.go.th/x" })] } }));
    renderApp("/search");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    expect(screen.queryByText("ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)")).toBeNull();
    await act(async () => {
      fireEvent.click(screen.getByTestId("view-long"));
    });
    expect(await screen.findByText("ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)")).toBeTruthy();
    expect(screen.getByText("4,812,500.00 บาท")).toBeTruthy();
    expect(screen.getByRole("link", { name: /ดูประกาศบน e-GP/ }).getAttribute("href")).toBe("https://process5.gprocurement.go.th/x");
  });

  it("empty state", async () => {
    backend((c) => listReply(c, { total: 0 }));
    renderApp("/search?keyWord_Incl_Or=ไม่มีแน่นอน");
    expect(await screen.findByTestId("search-empty", {}, { timeout: 5000 })).toBeTruthy();
    expect(screen.getByText(th.search.emptyTitle)).toBeTruthy();
  });

  it("error state: the app's mapping, 'Failed to fetch data' as the fallback, retry", async () => {
    let fail = true;
    backend((c) => (fail ? connectError(500, "boom") : listReply(c)));
    renderApp("/search");
    const err = await screen.findByTestId("search-error", {}, { timeout: 5000 });
    expect(err.textContent).toContain(msg("Failed to fetch data"));
    fail = false;
    await act(async () => {
      fireEvent.click(within(err).getByRole("button", { name: th.search.retry }));
    });
    expect(await screen.findAllByTestId("result-row", {}, { timeout: 5000 })).toHaveLength(10);
  });

  it("a network failure says so", async () => {
    const be = createFakeBackend({});
    be.install();
    // replace the fake with a fetch that rejects like a browser offline
    const { createAppTransport, setAppTransport } = await import("@/lib/transport");
    setAppTransport(createAppTransport({ baseUrl: "http://127.0.0.1:9", fetch: () => Promise.reject(new TypeError("Failed to fetch")) }));
    renderApp("/search");
    expect((await screen.findByTestId("search-error", {}, { timeout: 5000 })).textContent).toContain(msg("Unable to connect to the server. This may be a CORS issue or network problem."));
  });
});

describe("/search: save criteria (ToDoSearch, docs/product.md#search-saves-and-status-indicators toasts)", () => {
  function signIn() {
    useAuthStore.setState({ user: testUser });
    setAccessToken("tok");
  }

  async function saveWith(reply: () => { status?: number; json: unknown }, opts: { name?: string; saved?: unknown[] } = {}) {
    // As the server: the list holds the saved search once ToDoSearch has run,
    // so the plan has room for it when the dialog opens (one search of each
    // kind; the save dialog closes a kind whose room is full).
    let answered = false;
    const be = backend(undefined, {
      "ProjectsService/ToDoSearch": () => {
        answered = true;
        return reply();
      },
      "ProjectsService/RecallSaveCriteria": () => ({ json: { criteria: answered ? (opts.saved ?? []) : [] } }),
      "SubscriptionService/GetMySubscription": () => ({
        json: { tier: "free", combinationLimits: { searchCombination: 3, normalSearchSave: 1, overnightSearchSave: 1 } },
      }),
    });
    renderApp("/search?keyWord_Incl_Or=ถนน");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    fireEvent.click(screen.getByTestId("save-criteria"));
    const dialog = await screen.findByTestId("save-dialog");
    if (opts.name) fireEvent.change(within(dialog).getByPlaceholderText(th.search.saveNamePlaceholder), { target: { value: opts.name } });
    const overnight = within(dialog).getByRole<HTMLInputElement>("radio", { name: th.search.saveOvernight });
    fireEvent.click(overnight);
    // A closed kind would leave the click unanswered and save another kind (or nothing).
    expect(overnight.checked).toBe(true);
    expect(within(dialog).getByTestId<HTMLButtonElement>("save-confirm").disabled).toBe(false);
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId("save-confirm"));
    });
    return be;
  }

  const toasts = () => screen.queryAllByTestId("toast").map((t) => t.textContent);

  const ID = "0b7e3c2a-5f1d-4c8e-9a6b-2d4f8e1c7a90";
  // Characters the Thai fonts here (fonts-thai-tlwg, DejaVu) have no glyph for: ✅ ❌ and other emoji.
  const NO_GLYPH = /[\u2705\u274C\u{1F300}-\u{1FAFF}]/u;

  it("success names the search (the name typed), never its id, and sends the criteria with search_type", async () => {
    signIn();
    const be = await saveWith(() => ({ json: { message: "บันทึกเงื่อนไขการค้นหาแล้ว", criteriaId: ID } }), { name: "  งานถนน   ภาคอีสาน " });
    await waitFor(() => expect(toasts()).toContain("บันทึกเงื่อนไขการค้นหา “งานถนน ภาคอีสาน” แล้ว"));
    expect(toasts().join(" ")).not.toContain(ID);
    expect(toasts().join(" ")).not.toMatch(NO_GLYPH);
    const call = be.calls.find((c) => c.method === "ToDoSearch")!;
    expect(call.body).toMatchObject({ searchType: "overnight", name: "งานถนน   ภาคอีสาน", keyWordInclOr: ["ถนน"] });
    expect(call.headers.get("authorization")).toBe("Bearer tok");
    expect(screen.queryByTestId("save-dialog")).toBeNull();
  });

  it("success without a typed name: the name the service gave the search, read from the list", async () => {
    signIn();
    await saveWith(() => ({ json: { message: "บันทึกเงื่อนไขการค้นหาแล้ว", criteriaId: ID } }), {
      saved: [{ criteriaId: ID, name: "มีคำใดคำหนึ่ง ถนน", searchType: "overnight", criteria: { keyWord_Incl_Or: ["ถนน"] } }],
    });
    await waitFor(() => expect(toasts()).toContain("บันทึกเงื่อนไขการค้นหา “มีคำใดคำหนึ่ง ถนน” แล้ว"));
    expect(toasts().join(" ")).not.toContain(ID);
  });

  it("409: the reason's message, never the English detail", async () => {
    signIn();
    await saveWith(() => connectError(409, "Search criteria not found", "search-criteria-not-found"));
    await waitFor(() => expect(toasts()).toContain(reasons["search-criteria-not-found"]));
    expect(toasts()).not.toContain("Search criteria not found");
  });

  it("'Limit reached': '⚠️ {detail}', then after 2 s the limit info", async () => {
    signIn();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await saveWith(() => connectError(409, "Limit reached: 3 searches per day", "limit-reached"));
    await waitFor(() => expect(toasts()).toContain("⚠️ Limit reached: 3 searches per day"));
    const info = msg("Your search limit has been reached. Please try again tomorrow or consider upgrading your plan.");
    expect(toasts()).not.toContain(info);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1900);
    });
    expect(toasts()).not.toContain(info);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(200);
    });
    expect(toasts()).toContain(info);
  });

  it("the plan's saved searches full: '⚠️ {detail}', then after 2 s what to do (delete or upgrade), not 'try tomorrow'", async () => {
    signIn();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await saveWith(() => connectError(409, "Limit reached: บันทึกเงื่อนไขค้นหาแบบปกติได้ 1 ชุดในแพ็กเกจฟรี", "saved-search-limit"));
    await waitFor(() => expect(toasts()).toContain("⚠️ Limit reached: บันทึกเงื่อนไขค้นหาแบบปกติได้ 1 ชุดในแพ็กเกจฟรี"));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2100);
    });
    expect(toasts()).toContain(reasons["saved-search-limit"]);
    expect(toasts()).not.toContain(msg("Your search limit has been reached. Please try again tomorrow or consider upgrading your plan."));
  });

  it("an identical search (409): its reason's Thai", async () => {
    signIn();
    await saveWith(() => connectError(409, "An identical search is already saved: \"ถนน\"", "duplicate-search"));
    await waitFor(() => expect(toasts()).toContain(reasons["duplicate-search"]));
  });

  it("a kind the plan does not include (403): its reason's Thai", async () => {
    signIn();
    await saveWith(() => connectError(403, "Upgrade required", "upgrade_required"));
    await waitFor(() => expect(toasts()).toContain(reasons["upgrade_required"]));
  });

  it("other errors: '❌ Failed to save search criteria. Please try again.'", async () => {
    signIn();
    await saveWith(() => connectError(500, "database down"));
    await waitFor(() => expect(toasts()).toContain(msg("❌ Failed to save search criteria. Please try again.")));
    expect(toasts().join(" ")).not.toMatch(NO_GLYPH);
  });

  it("visitors are sent to /login and come back to the same search", async () => {
    backend();
    const { router } = renderApp("/search?keyWord_Incl_Or=ถนน&page=2");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    fireEvent.click(screen.getByTestId("save-criteria"));
    await waitFor(() => expect(router.state.location.pathname).toBe("/login"));
    expect((router.state.location.state as { from: string }).from).toBe("/search?keyWord_Incl_Or=ถนน&page=2");
  });
});
