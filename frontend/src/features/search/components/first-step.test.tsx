import { beforeEach, describe, expect, it } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { createFakeBackend, testUser, type Call } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { th } from "@/i18n/th";
import { resetFirstStep } from "../lib/first-step";

const t = th.firstStep;

const saved = {
  criteriaId: "c-1",
  name: "ถนน",
  searchType: "normal",
  criteria: { keyWord_Incl_Or: ["ถนน"] },
  createdAt: "2026-11-20T03:00:00Z",
};

function backend(opts: { saved?: unknown[] } = {}) {
  let list = opts.saved ?? [];
  const be = createFakeBackend({
    "SubscriptionService/ListTiers": () => ({ json: { tierDetails: [] } }),
    "ProjectsService/GetDropdownData": () => ({ json: { provinces: [{ value: "50", label: "เชียงใหม่" }] } }),
    "ProjectsService/ListProjects": () => ({ json: { data: [], pagination: { page: 1, perPage: 10, total: "0", totalPages: 0 } } }),
    "ProjectsService/RecallSaveCriteria": () => ({ json: { criteria: list } }),
    "SubscriptionService/GetMySubscription": () => ({
      // The free plan: one normal saved search, none overnight.
      json: {
        tier: "free",
        combinationLimits: { searchCombination: 3, searchCombinationMonth: 30, normalSearchSave: 1, overnightSearchSave: 0, databaseFilterSearch: 20, exploreLiveSearch: 0 },
      },
    }),
    "ProjectsService/ToDoSearch": () => {
      list = [saved];
      return { json: { message: "บันทึกเงื่อนไขการค้นหาแล้ว", criteriaId: "c-1" } };
    },
  });
  be.install();
  return be;
}

function signIn() {
  useAuthStore.setState({ user: testUser });
  setAccessToken("tok");
}

const hero = () => screen.findByRole("heading", { level: 1, name: th.home.heroTitle }, { timeout: 10_000 });

describe("the first step of a new account", () => {
  beforeEach(() => resetFirstStep());

  it("/ shows it to a signed-in user without a saved search; it leads into the search's save dialog", async () => {
    signIn();
    const be = backend();
    const { router } = renderApp("/");
    const step = await screen.findByTestId("first-step", {}, { timeout: 10_000 });
    expect(within(step).getByRole("heading", { level: 1 }).textContent).toBe(t.heading);
    expect(screen.queryByRole("heading", { name: th.home.heroTitle })).toBeNull();
    await waitFor(() => expect(document.title).toMatch(new RegExp(`^${t.title}`)));

    // A typed keyword and an example, then on to the search.
    fireEvent.change(within(step).getByLabelText(t.keywords), { target: { value: "ก่อสร้างสะพาน" } });
    fireEvent.click(within(step).getByRole("button", { name: t.addExample(t.exampleWords[0]) }));
    fireEvent.click(within(step).getByTestId("first-step-submit"));

    await waitFor(() => expect(router.state.location.pathname).toBe("/search"));
    expect(new URLSearchParams(router.state.location.search).getAll("keyWord_Incl_Or")).toEqual([t.exampleWords[0], "ก่อสร้างสะพาน"]);
    const dialog = await screen.findByTestId("save-dialog", {}, { timeout: 10_000 });
    // The state that opened it is gone: a reload or Back will not reopen it.
    expect(router.state.location.state).toBeNull();
    // A new account has the free plan's one normal search free: it is chosen and open.
    await waitFor(() => expect(be.calls.some((c: Call) => c.method === "GetMySubscription")).toBe(true));
    expect(within(dialog).getByRole<HTMLInputElement>("radio", { name: th.search.saveNormal }).checked).toBe(true);
    expect(within(dialog).queryByTestId("save-locked-normal")).toBeNull();
    expect(within(dialog).getByTestId<HTMLButtonElement>("save-confirm").disabled).toBe(false);
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId("save-confirm"));
    });
    await waitFor(() =>
      expect(be.calls.find((c: Call) => c.method === "ToDoSearch")?.body).toMatchObject({ searchType: "normal", keyWordInclOr: [t.exampleWords[0], "ก่อสร้างสะพาน"] }),
    );
    await waitFor(() => expect(screen.queryByTestId("save-dialog")).toBeNull());

    // With a search saved, / is the landing page again.
    await act(async () => {
      await router.navigate("/");
    });
    await hero();
  });

  it("asks for a keyword or a province before going on", async () => {
    signIn();
    backend();
    const { router } = renderApp("/");
    const step = await screen.findByTestId("first-step", {}, { timeout: 10_000 });
    fireEvent.click(within(step).getByTestId("first-step-submit"));
    expect((await within(step).findByTestId("first-step-error")).textContent).toBe(t.required);
    expect(router.state.location.pathname).toBe("/");
  });

  it("can be skipped: on to the search, and / is the landing page for the rest of the visit", async () => {
    signIn();
    const be = backend();
    const { router } = renderApp("/");
    fireEvent.click(await screen.findByTestId("first-step-skip", {}, { timeout: 10_000 }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/search"));
    expect(screen.queryByTestId("save-dialog")).toBeNull();
    await act(async () => {
      await router.navigate("/");
    });
    await hero();
    expect(screen.queryByTestId("first-step")).toBeNull();
    expect(be.calls.some((c) => c.method === "ToDoSearch")).toBe(false);
  });

  it("is not shown to a user who has a saved search", async () => {
    signIn();
    backend({ saved: [saved] });
    renderApp("/");
    await hero();
    expect(screen.queryByTestId("first-step")).toBeNull();
  });

  it("is not shown to a visitor", async () => {
    const be = backend();
    renderApp("/");
    await hero();
    expect(screen.queryByTestId("first-step")).toBeNull();
    expect(be.calls.some((c) => c.method === "RecallSaveCriteria")).toBe(false);
  });
});
