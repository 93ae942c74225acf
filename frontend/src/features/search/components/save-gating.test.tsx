import { afterEach, describe, expect, it } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser, type Call } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { th } from "@/i18n/th";
import { reasons } from "@/i18n/reasons";

const s = th.savedSearch;

function plan(overnightSearchSave: number, searchCombination = 3, normalSearchSave = 5) {
  return { json: { tier: "free", tierLabel: "ฟรี", combinationLimits: { searchCombination, searchCombinationMonth: 30, overnightSearchSave, normalSearchSave, databaseFilterSearch: 20, exploreLiveSearch: 0 } } };
}

const savedNight = {
  criteriaId: "c-night",
  name: "ประตูระบายน้ำ",
  searchType: "overnight",
  criteria: { keyWord_Incl_Or: ["ประตูระบายน้ำ"], province_User: ["10"] },
  createdAt: "2026-11-20T03:00:00Z",
};

function backend(opts: { limit?: number; saved?: unknown[]; combination?: number; extra?: Record<string, (c: Call) => { status?: number; json: unknown }> } = {}) {
  const be = createFakeBackend({
    "ProjectsService/GetDropdownData": () => ({ json: { provinces: [{ value: "10", label: "กรุงเทพมหานคร" }] } }),
    "ProjectsService/ListProjects": () => ({ json: { data: [], pagination: { page: 1, perPage: 10, total: "0", totalPages: 0 } } }),
    "ProjectsService/RecallSaveCriteria": () => ({ json: { criteria: opts.saved ?? [] } }),
    "SubscriptionService/GetMySubscription": () => plan(opts.limit ?? 1, opts.combination),
    ...opts.extra,
  });
  be.install();
  return be;
}

function signIn() {
  useAuthStore.setState({ user: testUser });
  setAccessToken("tok");
}

afterEach(() => useAuthStore.setState({ user: null }));

/** Opens the dialog once the plan and the saved list (loaded with the page) have answered. */
async function openDialog(be: { calls: Call[] }) {
  const button = await screen.findByTestId("save-criteria");
  await waitFor(() => expect(be.calls.some((c) => c.method === "GetMySubscription")).toBe(true));
  await waitFor(() => expect(be.calls.some((c) => c.method === "RecallSaveCriteria")).toBe(true));
  await act(async () => {});
  fireEvent.click(button);
  return screen.findByTestId("save-dialog");
}

const overnightRadio = (dialog: HTMLElement) => within(dialog).getByRole<HTMLInputElement>("radio", { name: th.search.saveOvernight });
const normalRadio = (dialog: HTMLElement) => within(dialog).getByRole<HTMLInputElement>("radio", { name: th.search.saveNormal });

describe("save dialog: the plan's overnight_search_save", () => {
  it("at the limit, overnight is disabled with the plan's limit and a link to the plans; a normal save still works", async () => {
    signIn();
    const be = backend({ limit: 1, saved: [savedNight], extra: { "ProjectsService/ToDoSearch": () => ({ json: { message: "บันทึกแล้ว", criteriaId: "c-2" } }) } });
    renderApp("/search?keyWord_Incl_Or=ถนน");
    const dialog = await openDialog(be);
    await waitFor(() => expect(overnightRadio(dialog).disabled).toBe(true));
    expect(normalRadio(dialog).disabled).toBe(false);
    expect(within(dialog).getByTestId("save-locked-overnight").textContent).toBe(s.overnightFull("1"));
    const link = within(dialog).getByTestId("save-locked-plans");
    expect(link.getAttribute("href")).toBe("/user-settings/pricing");
    // A click on the closed choice changes nothing: the save is normal.
    fireEvent.click(overnightRadio(dialog));
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId("save-confirm"));
    });
    await waitFor(() => expect(be.calls.find((c) => c.method === "ToDoSearch")?.body).toMatchObject({ searchType: "normal", keyWordInclOr: ["ถนน"] }));
  });

  it("with room left, overnight is open and nothing is said", async () => {
    signIn();
    const be = backend({ limit: 1, saved: [] });
    renderApp("/search?keyWord_Incl_Or=ถนน");
    const dialog = await openDialog(be);
    expect(overnightRadio(dialog).disabled).toBe(false);
    expect(within(dialog).queryByTestId("save-locked")).toBeNull();
  });

  it("unlimited (-1) never locks; a plan without overnight (0) says so", async () => {
    signIn();
    let be = backend({ limit: -1, saved: [savedNight, { ...savedNight, criteriaId: "c-3" }] });
    const first = renderApp("/search?keyWord_Incl_Or=ถนน");
    let dialog = await openDialog(be);
    expect(overnightRadio(dialog).disabled).toBe(false);
    first.unmount();

    be = backend({ limit: 0, saved: [] });
    renderApp("/search?keyWord_Incl_Or=ถนน");
    dialog = await openDialog(be);
    await waitFor(() => expect(overnightRadio(dialog).disabled).toBe(true));
    expect(within(dialog).getByTestId("save-locked-overnight").textContent).toBe(s.overnightNone);
  });
});

describe("/search?criteria=<id>: editing a saved search", () => {
  it("loads the saved criteria into the form; บันทึกการแก้ไข sends UpdateSearchCriteria and returns to the list", async () => {
    signIn();
    const be = backend({
      limit: 1,
      saved: [savedNight],
      extra: {
        "ProjectsService/UpdateSearchCriteria": (c) => ({ json: { message: "บันทึกการแก้ไขแล้ว", criteria: { ...savedNight, searchType: c.body.searchType } } }),
      },
    });
    const { router } = renderApp("/search?criteria=c-night");
    // The URL (and so the form and the results) takes the saved criteria.
    await waitFor(() => expect(router.state.location.search).toContain("keyWord_Incl_Or="));
    const sp = new URLSearchParams(router.state.location.search);
    expect(sp.getAll("keyWord_Incl_Or")).toEqual(["ประตูระบายน้ำ"]);
    expect(sp.getAll("province_User")).toEqual(["10"]);
    expect(sp.get("criteria")).toBe("c-night");
    await waitFor(() => expect(be.calls.some((c) => c.method === "ListProjects" && (c.body.keyWordInclOr as string[] | undefined)?.[0] === "ประตูระบายน้ำ")).toBe(true));
    expect((await screen.findByTestId("edit-banner")).textContent).toContain(s.editing("ประตูระบายน้ำ"));
    expect(screen.getByTestId("save-criteria").textContent).toBe(s.saveEdit);

    const dialog = await openDialog(be);
    // Already overnight: keeping it overnight takes no unit, so it stays open at 1/1.
    expect(overnightRadio(dialog).checked).toBe(true);
    expect(overnightRadio(dialog).disabled).toBe(false);
    expect(within(dialog).getByLabelText(new RegExp(th.search.saveName)).getAttribute("value")).toBe("ประตูระบายน้ำ");
    expect(within(dialog).getByTestId("save-confirm").textContent).toBe(s.saveEdit);
    fireEvent.click(normalRadio(dialog));
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId("save-confirm"));
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/user-settings/search-criteria"));
    const call = be.calls.find((c) => c.method === "UpdateSearchCriteria")!;
    expect(call.body).toMatchObject({ criteriaId: "c-night", searchType: "normal", name: "ประตูระบายน้ำ" });
    expect(call.body.criteria).toMatchObject({ keyWordInclOr: ["ประตูระบายน้ำ"], provinceUser: ["10"] });
    expect(be.calls.some((c) => c.method === "ToDoSearch")).toBe(false);
    // The toast names the search, with no emoji the Thai fonts lack.
    await waitFor(() => expect(screen.getAllByTestId("toast").map((t) => t.textContent)).toContain(s.editedToast("ประตูระบายน้ำ")));
  });

  it("a normal search switched to overnight at the limit: the choice is closed", async () => {
    signIn();
    const be = backend({ limit: 1, saved: [{ ...savedNight, criteriaId: "c-day", searchType: "normal" }, savedNight] });
    renderApp("/search?criteria=c-day");
    await screen.findByTestId("edit-banner");
    const dialog = await openDialog(be);
    await waitFor(() => expect(overnightRadio(dialog).disabled).toBe(true));
    expect(normalRadio(dialog).checked).toBe(true);
  });

  it("an unknown id says so and leaves edit mode; a refusal shows the reason's Thai", async () => {
    signIn();
    const be = backend({
      saved: [savedNight],
      extra: { "ProjectsService/UpdateSearchCriteria": () => connectError(404, "Search criteria not found", "search-criteria-not-found") },
    });
    const { router } = renderApp("/search?criteria=gone");
    await waitFor(() => expect(screen.queryAllByTestId("toast").map((t) => t.textContent)).toContain(s.editNotFound));
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).has("criteria")).toBe(false));
    expect(screen.getByTestId("save-criteria").textContent).toBe(th.search.save);

    await act(async () => {
      await router.navigate("/search?criteria=c-night&keyWord_Incl_Or=ฝาย");
    });
    // The URL's own criteria win over the saved ones (a reload mid-edit).
    await screen.findByTestId("edit-banner");
    expect(new URLSearchParams(router.state.location.search).getAll("keyWord_Incl_Or")).toEqual(["ฝาย"]);
    const dialog = await openDialog(be);
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId("save-confirm"));
    });
    await waitFor(() => expect(screen.queryAllByTestId("toast").map((t) => t.textContent)).toContain(reasons["search-criteria-not-found"]));
    expect(be.calls.find((c) => c.method === "UpdateSearchCriteria")!.body.criteria).toMatchObject({ keyWordInclOr: ["ฝาย"] });
  });
});
