import { afterEach, describe, expect, it } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser, type Call, type Reply } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { msg, th } from "@/i18n/th";

function row(i: number, extra: Record<string, unknown> = {}) {
  return { projectId: `6909972220${i}`, projectName: `โครงการที่ ${i}`, deptName: "กรมทางหลวง", status: "open", statusName: "ประกาศเชิญชวน", ...extra };
}

function backend(update: (c: Call) => Reply) {
  const be = createFakeBackend({
    "ProjectsService/GetDropdownData": () => ({ json: {} }),
    "ProjectsService/ListProjects": () => ({
      json: { data: [row(1), row(2, { isUserLike: true })], pagination: { page: 1, perPage: 10, total: "2", totalPages: 1 } },
    }),
    "InterestsService/UpdateInterest": update,
  });
  be.install();
  return be;
}

function signIn() {
  useAuthStore.setState({ user: testUser });
  setAccessToken("tok");
}

afterEach(() => useAuthStore.setState({ user: null }));

const rowOf = (id: string) => screen.getAllByTestId("result-row").find((r) => r.dataset.projectId === id)!;

describe("marks on search rows", () => {
  it("shows the row's marks, sets one optimistically and keeps it when the server agrees", async () => {
    signIn();
    let release!: () => void;
    const be = backend((c) => new Promise((ok) => (release = () => ok({ json: { message: "ok", data: { idProject: c.body.projectId, isUserLike: true } } }))));
    renderApp("/search");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    expect(within(rowOf("69099722202")).getByTestId("mark-like").getAttribute("aria-pressed")).toBe("true");
    const like = within(rowOf("69099722201")).getByTestId("mark-like");
    expect(like.getAttribute("aria-pressed")).toBe("false");
    fireEvent.click(like);
    await waitFor(() => expect(within(rowOf("69099722201")).getByTestId("mark-like").getAttribute("aria-pressed")).toBe("true"));
    const call = be.calls.find((c) => c.method === "UpdateInterest")!;
    expect(call.body).toMatchObject({ projectId: "69099722201", isUserLike: true });
    await act(async () => release());
  });

  it("rolls back and says so when the server refuses", async () => {
    signIn();
    backend(() => connectError(503, "Service is currently unavailable. Please try again later."));
    renderApp("/search");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    fireEvent.click(within(rowOf("69099722201")).getByTestId("mark-bid"));
    await screen.findByText(msg("Service is currently unavailable. Please try again later."));
    await waitFor(() => expect(within(rowOf("69099722201")).getByTestId("mark-bid").getAttribute("aria-pressed")).toBe("false"));
  });

  it("follow cycles off → following → following + 20 days → off", async () => {
    signIn();
    const be = backend((c) => ({ json: { message: "ok", data: { idProject: c.body.projectId } } }));
    renderApp("/search");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    fireEvent.click(within(rowOf("69099722201")).getByTestId("mark-follow"));
    await waitFor(() => expect(be.calls.filter((c) => c.method === "UpdateInterest").length).toBe(1));
    expect(be.calls.find((c) => c.method === "UpdateInterest")!.body).toMatchObject({ isInterestToStepChk: true, isFill20: false });
  });

  it("visitors see no marks and send no listing filters", async () => {
    const be = backend(() => ({ json: {} }));
    renderApp("/search?is_userLike=true");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    expect(screen.queryByTestId("marks")).toBeNull();
    expect(screen.queryByTestId("listing-filters")).toBeNull();
    expect([...be.calls].reverse().find((c) => c.method === "ListProjects")!.body.isUserLike).toBeUndefined();
  });
});

describe("the listing-filter bar", () => {
  it("sends the filters and applies their exclusions (docs/product.md#listing-filters)", async () => {
    signIn();
    const be = backend(() => ({ json: {} }));
    renderApp("/search?keyWord_Incl_Or=ถนน");
    await screen.findAllByTestId("result-row", {}, { timeout: 5000 });
    const last = () => [...be.calls].reverse().find((c) => c.method === "ListProjects")!.body;
    fireEvent.click(screen.getByTestId("filter-like"));
    await waitFor(() => expect(last()).toMatchObject({ isUserLike: true, keyWordInclOr: ["ถนน"] }));
    fireEvent.click(screen.getByTestId("filter-comment"));
    await waitFor(() => expect(last()).toMatchObject({ isComment: true }));
    expect(last().isUserLike).toBeUndefined(); // false is not sent
    fireEvent.click(screen.getByTestId("filter-follow"));
    await waitFor(() => expect(last()).toMatchObject({ isInterestToStepChk: true }));
    expect(screen.getByTestId("filter-follow").textContent).toBe(th.interests.following);
    // Archive clears the keyword too.
    fireEvent.click(screen.getByTestId("filter-archive"));
    await waitFor(() => expect(last()).toMatchObject({ isArchived: true }));
    expect(last().keyWordInclOr).toBeUndefined();
    expect(last().isInterestToStepChk).toBeUndefined();
  });
});
