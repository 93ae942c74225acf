import { useState } from "react";
import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser, type Call, type Handler } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { useToastStore } from "@/stores/toast-store";
import { th } from "@/i18n/th";
import { MentionInput } from "./mention-input";

const t = th.teams;

function signIn() {
  useAuthStore.setState({ user: testUser });
  setAccessToken("tok");
}

const team = (role: string, extra: Record<string, unknown> = {}) => ({
  id: "team-1",
  name: "ทีมประมูล",
  role,
  seats: 3,
  seatsUsed: 2,
  readOnly: false,
  ownerUserId: "u-1",
  memberCount: 2,
  ...extra,
});

const members = [
  { userId: "u-1", username: "somchai", name: "สมชาย ใจดี", email: "somchai@example.co.th", role: "owner" },
  { userId: "u-2", username: "malee", name: "มาลี ร่วมทีม", email: "malee@example.co.th", role: "member" },
];

const item = (projectId: string, stage: string, extra: Record<string, unknown> = {}) => ({
  projectId,
  stage,
  ownerUserId: "",
  dueDate: "",
  bidPrice: "",
  note: "",
  projectName: `โครงการ ${projectId}`,
  agency: "เทศบาลเมือง",
  budget: "2500000.00",
  deadline: "2026-12-20",
  updatedBy: "u-1",
  commentCount: 0,
  ...extra,
});

function backend(handlers: Record<string, Handler>, plan = 3) {
  const be = createFakeBackend({
    "SubscriptionService/GetMySubscription": () => ({ json: { tier: plan ? "pro" : "free", combinationLimits: { teamSeats: plan } } }),
    "NotificationService/GetUnreadCount": () => ({ json: { unreadCount: 0 } }),
    ...handlers,
  });
  be.install();
  return be;
}

const toasts = () => useToastStore.getState().toasts.map((x) => x.text);
const calls = (be: { calls: Call[] }, method: string) => be.calls.filter((c) => c.method === method);

describe("the pipeline board", () => {
  const pipeline = () => ({
    json: { data: [item("69130000001", "triage"), item("69130000002", "won", { bidPrice: "1234567.89", ownerUserId: "u-2" })], pagination: { page: 1, perPage: 200, total: "2", totalPages: 1 } },
  });

  it("has a column per stage in Thai, exact bid prices, and moves a card with its stage select", async () => {
    signIn();
    const rows = pipeline().json.data;
    const be = backend({
      "TeamsService/ListTeams": () => ({ json: { data: [team("member")] } }),
      "TeamsService/ListMembers": () => ({ json: { data: members } }),
      "TeamsService/ListPipeline": () => ({ json: { data: rows } }),
      "TeamsService/PutPipelineItem": async (c) => {
        await new Promise((r) => setTimeout(r, 50));
        const i = rows.findIndex((r) => r.projectId === c.body.projectId);
        rows[i] = { ...rows[i], stage: c.body.stage as string };
        return { json: { item: rows[i] } };
      },
    });
    renderApp("/pipeline");
    const board = await screen.findByTestId("board");
    for (const s of ["triage", "preparing", "submitted", "won", "lost", "abandoned"] as const) {
      expect(within(board).getByTestId(`column-${s}`).textContent).toContain(t.stages[s]);
    }
    const won = within(board).getByTestId("column-won");
    expect(won.textContent).toContain("เสนอ 1,234,567.89 บาท");
    expect(won.textContent).toContain("มาลี ร่วมทีม");
    const first = within(board).getByTestId("column-triage").querySelector<HTMLElement>("[data-project-id='69130000001']")!;
    fireEvent.change(within(first).getByTestId("card-stage"), { target: { value: "submitted" } });
    // Optimistic: the card is in its new column before the server answers.
    await waitFor(() => expect(within(board).getByTestId("column-submitted").querySelector("[data-project-id='69130000001']")).not.toBeNull());
    await waitFor(() => expect(calls(be, "PutPipelineItem")).toHaveLength(1));
    expect(calls(be, "PutPipelineItem")[0].body).toMatchObject({ teamId: "team-1", projectId: "69130000001", stage: "submitted" });
    await waitFor(() => expect(toasts()).toContain(t.moved("โครงการ 69130000001", t.stages.submitted)));
  });

  it("a refused move goes back, with the reason in Thai", async () => {
    signIn();
    backend({
      "TeamsService/ListTeams": () => ({ json: { data: [team("member")] } }),
      "TeamsService/ListMembers": () => ({ json: { data: members } }),
      "TeamsService/ListPipeline": pipeline,
      "TeamsService/PutPipelineItem": () => connectError(403, "team is read-only", "team-read-only"),
    });
    renderApp("/pipeline");
    const board = await screen.findByTestId("board");
    const first = within(board).getByTestId("column-triage").querySelector<HTMLElement>("[data-project-id='69130000001']")!;
    fireEvent.change(within(first).getByTestId("card-stage"), { target: { value: "lost" } });
    await waitFor(() => expect(toasts().some((x) => /อ่านได้อย่างเดียว|ไม่สำเร็จ/.test(x))).toBe(true));
    await waitFor(() => expect(within(board).getByTestId("column-triage").querySelector("[data-project-id='69130000001']")).not.toBeNull());
  });

  it("a viewer reads: no drag handles, no stage selects, a read-only note", async () => {
    signIn();
    backend({
      "TeamsService/ListTeams": () => ({ json: { data: [team("viewer")] } }),
      "TeamsService/ListMembers": () => ({ json: { data: members } }),
      "TeamsService/ListPipeline": pipeline,
    });
    renderApp("/pipeline");
    await screen.findByTestId("board");
    expect((await screen.findByTestId("pipeline-read-only")).textContent).toContain(t.readOnly);
    expect(screen.queryAllByTestId("drag-handle")).toHaveLength(0);
    expect(screen.queryAllByTestId("card-stage")).toHaveLength(0);
  });

  it("filters by stage and owner through the server", async () => {
    signIn();
    const be = backend({
      "TeamsService/ListTeams": () => ({ json: { data: [team("owner")] } }),
      "TeamsService/ListMembers": () => ({ json: { data: members } }),
      "TeamsService/ListPipeline": pipeline,
    });
    renderApp("/pipeline?stage=won&owner=u-2");
    await screen.findByTestId("board");
    await waitFor(() => expect(calls(be, "ListPipeline").at(-1)?.body).toMatchObject({ stage: "won", ownerUserId: "u-2" }));
    expect(screen.queryByTestId("column-triage")).toBeNull();
    expect(screen.getByTestId("column-won")).toBeTruthy();
  });

  it("a notification's link opens the board with the item's drawer", async () => {
    signIn();
    backend({
      "TeamsService/ListTeams": () => ({ json: { data: [team("owner")] } }),
      "TeamsService/ListMembers": () => ({ json: { data: members } }),
      "TeamsService/ListPipeline": pipeline,
      "TeamsService/GetPipelineItem": () => ({ json: { item: item("69130000001", "triage") } }),
      "TeamsService/ListItemHistory": () => ({
        json: { data: [{ at: "2026-11-27T03:00:00Z", userId: "u-2", field: "stage", from: "triage", to: "preparing" }] },
      }),
      "TeamsService/ListComments": () => ({ json: { data: [] } }),
    });
    const { router } = renderApp("/teams/team-1/pipeline?project=69130000001");
    const drawer = await screen.findByTestId("item-drawer");
    expect(router.state.location.search).toContain("item=69130000001");
    const entry = await within(drawer).findByTestId("history-entry");
    expect(entry.textContent).toContain("มาลี ร่วมทีม");
    expect(entry.textContent).toContain(`${t.stages.triage} → ${t.stages.preparing}`);
    expect(entry.textContent).toContain("27 พ.ย. 2569");
  });
});

describe("the item drawer", () => {
  it("sends the bid price exact to the satang and the due date as an ISO date", async () => {
    signIn();
    const be = backend({
      "TeamsService/ListTeams": () => ({ json: { data: [team("owner")] } }),
      "TeamsService/ListMembers": () => ({ json: { data: members } }),
      "TeamsService/ListPipeline": () => ({ json: { data: [item("69130000001", "triage")], pagination: { total: "1" } } }),
      "TeamsService/GetPipelineItem": () => ({ json: { item: item("69130000001", "triage") } }),
      "TeamsService/ListItemHistory": () => ({ json: { data: [] } }),
      "TeamsService/ListComments": () => ({ json: { data: [] } }),
      "TeamsService/PutPipelineItem": () => ({ json: { item: item("69130000001", "triage") } }),
    });
    renderApp("/pipeline?item=69130000001");
    const drawer = await screen.findByTestId("item-drawer");
    fireEvent.change(await within(drawer).findByTestId("item-owner"), { target: { value: "u-2" } });
    fireEvent.change(within(drawer).getByTestId("item-bid"), { target: { value: "90,071,992,547,409.93" } });
    fireEvent.change(within(drawer).getByTestId("item-due"), { target: { value: "15/12/2569" } });
    fireEvent.click(within(drawer).getByTestId("item-save"));
    await waitFor(() => expect(calls(be, "PutPipelineItem")).toHaveLength(1));
    expect(calls(be, "PutPipelineItem")[0].body).toEqual({
      teamId: "team-1",
      projectId: "69130000001",
      ownerUserId: "u-2",
      dueDate: "2026-12-15",
      bidPrice: "90071992547409.93",
    });
  });

  it("refuses a bid with three decimals or a date that is no date, in Thai, without a call", async () => {
    signIn();
    const be = backend({
      "TeamsService/ListTeams": () => ({ json: { data: [team("member")] } }),
      "TeamsService/ListMembers": () => ({ json: { data: members } }),
      "TeamsService/ListPipeline": () => ({ json: { data: [item("69130000001", "triage")] } }),
      "TeamsService/GetPipelineItem": () => ({ json: { item: item("69130000001", "triage") } }),
      "TeamsService/ListItemHistory": () => ({ json: { data: [] } }),
      "TeamsService/ListComments": () => ({ json: { data: [] } }),
    });
    renderApp("/pipeline?item=69130000001");
    const drawer = await screen.findByTestId("item-drawer");
    fireEvent.change(await within(drawer).findByTestId("item-bid"), { target: { value: "1.234" } });
    fireEvent.change(within(drawer).getByTestId("item-due"), { target: { value: "31/02/2569" } });
    fireEvent.click(within(drawer).getByTestId("item-save"));
    expect(await within(drawer).findByText(t.bidInvalid)).toBeTruthy();
    expect(within(drawer).getByText(t.dueInvalid)).toBeTruthy();
    expect(calls(be, "PutPipelineItem")).toHaveLength(0);
  });
});

describe("mention autocomplete", () => {
  function Box() {
    const [v, setV] = useState("");
    return <MentionInput label="ข้อความ" value={v} onChange={setV} members={members} />;
  }
  it("lists members after @, moves with the arrows and puts the username in with Enter", async () => {
    render(<Box />);
    const box = screen.getByRole<HTMLTextAreaElement>("combobox");
    fireEvent.change(box, { target: { value: "ดูราคา @m", selectionStart: 9, selectionEnd: 9 } });
    const list = screen.getByTestId("mention-list");
    await waitFor(() => expect(list.hidden).toBe(false));
    // Username prefixes first, then names and usernames that merely contain it.
    expect(within(list).getAllByRole("option").map((o) => o.textContent)).toEqual(["@malee มาลี ร่วมทีม", "@somchai สมชาย ใจดี"]);
    expect(box.getAttribute("aria-expanded")).toBe("true");
    fireEvent.keyDown(box, { key: "ArrowDown" });
    expect(within(list).getAllByRole("option")[1].getAttribute("aria-selected")).toBe("true");
    expect(box.getAttribute("aria-activedescendant")).toBe(within(list).getAllByRole("option")[1].id);
    fireEvent.keyDown(box, { key: "ArrowDown" });
    fireEvent.keyDown(box, { key: "Enter" });
    expect(box.value).toBe("ดูราคา @malee ");
    expect(box.getAttribute("aria-expanded")).toBe("false");
  });
  it("Escape closes the list and keeps the text", () => {
    render(<Box />);
    const box = screen.getByRole<HTMLTextAreaElement>("combobox");
    fireEvent.change(box, { target: { value: "@s", selectionStart: 2, selectionEnd: 2 } });
    expect(screen.getAllByRole("option")).toHaveLength(1);
    fireEvent.keyDown(box, { key: "Escape" });
    expect(screen.queryAllByRole("option")).toHaveLength(0);
    expect(box.value).toBe("@s");
  });
});

describe("team settings", () => {
  const settingsBackend = (extra: Record<string, Handler> = {}, role = "owner") =>
    backend({
      "TeamsService/GetTeam": () => ({ json: { team: team(role) } }),
      "TeamsService/ListMembers": () => ({ json: { data: members } }),
      "TeamsService/ListInvitations": () => ({ json: { data: [] } }),
      "TeamsService/ListApiKeys": () => ({ json: { data: [] } }),
      "TeamsService/GetCalendarFeed": () => ({ json: { feed: { active: false } } }),
      ...extra,
    });

  it("shows the seats, and a seat beyond the plan is refused in Thai with the way to the plans", async () => {
    signIn();
    settingsBackend({ "TeamsService/CreateInvitation": () => connectError(409, "no seat left", "seat_limit") });
    renderApp("/teams/team-1");
    expect((await screen.findByTestId("team-seats")).textContent).toContain(t.seats(2, 3));
    fireEvent.change(screen.getByTestId("invite-email"), { target: { value: "new@example.co.th" } });
    fireEvent.click(screen.getByTestId("invite-send"));
    const refusal = await screen.findByTestId("invite-seat-limit");
    expect(refusal.textContent).toContain("ที่นั่งของทีมเต็มแล้ว");
    expect(within(refusal).getByRole("link").getAttribute("href")).toBe("/user-settings/pricing");
  });

  it("an API key's secret is shown once, then only its name, scopes and dates", async () => {
    signIn();
    let keys: unknown[] = [];
    const be = settingsBackend({
      "TeamsService/CreateApiKey": (c) => {
        keys = [{ id: "k1", name: c.body.name, scopes: c.body.scopes, createdAt: "2026-11-27T03:00:00Z", prefix: "brk_ab12" }];
        return { json: { key: keys[0], secret: "brk_ab12_SECRET_VALUE_0123456789" } };
      },
      "TeamsService/ListApiKeys": () => ({ json: { data: keys } }),
    });
    renderApp("/teams/team-1");
    fireEvent.change(await screen.findByTestId("key-name"), { target: { value: "ERP" } });
    fireEvent.click(screen.getByTestId("key-scope-write"));
    fireEvent.click(screen.getByTestId("key-create"));
    expect((await screen.findByTestId<HTMLInputElement>("key-secret-value")).value).toBe("brk_ab12_SECRET_VALUE_0123456789");
    expect(calls(be, "CreateApiKey")[0].body).toMatchObject({ name: "ERP", scopes: ["read", "write"] });
    const row = await screen.findByTestId("key-row");
    expect(row.textContent).toContain("อ่าน + เขียน");
    expect(row.textContent).toContain(t.keyNeverUsed);
    expect(row.textContent).toContain("2569");
    expect(row.textContent).not.toContain("SECRET");
    fireEvent.click(screen.getByTestId("key-secret-done"));
    expect(screen.queryByTestId("key-secret")).toBeNull();
  });

  it("a member sees the members but no invitations or keys, and may leave", async () => {
    signIn();
    settingsBackend({}, "member");
    renderApp("/teams/team-1");
    await screen.findByTestId("team-members");
    await waitFor(() => expect(screen.getAllByTestId("member-row")).toHaveLength(2));
    expect(screen.queryByTestId("team-invite")).toBeNull();
    expect(screen.queryByTestId("team-api-keys")).toBeNull();
    expect(screen.queryAllByTestId("member-role")).toHaveLength(0);
    expect(screen.getByTestId("member-leave")).toBeTruthy();
  });

  it("a team one is not in is not found", async () => {
    signIn();
    backend({ "TeamsService/GetTeam": () => connectError(404, "not found", "team-not-found") });
    renderApp("/teams/team-x");
    expect((await screen.findByTestId("team-not-found")).textContent).toContain(t.notFound);
  });
});

describe("teams and joining", () => {
  it("free and starter plans see the plans instead of the create form", async () => {
    signIn();
    backend({ "TeamsService/ListTeams": () => ({ json: { data: [] } }) }, 0);
    renderApp("/teams");
    expect(await screen.findByTestId("team-upgrade")).toBeTruthy();
    expect(screen.queryByTestId("team-create")).toBeNull();
  });

  it("a create the server refuses with upgrade_required turns into the plans", async () => {
    signIn();
    backend({
      "TeamsService/ListTeams": () => ({ json: { data: [] } }),
      "TeamsService/CreateTeam": () => connectError(403, "upgrade required", "upgrade_required"),
    });
    renderApp("/teams");
    fireEvent.change(await screen.findByTestId("team-create-name"), { target: { value: "ทีมใหม่" } });
    fireEvent.click(screen.getByTestId("team-create"));
    expect((await screen.findByTestId("team-upgrade")).textContent).toContain("อัปเกรด");
  });

  it("the mailed link fills the code; a code for someone else is not found, in Thai", async () => {
    signIn();
    const be = backend({ "TeamsService/AcceptInvitation": () => connectError(404, "not found", "invitation-not-found") });
    renderApp("/teams/join?code=482913");
    fireEvent.click(await screen.findByTestId("team-join-submit"));
    expect((await screen.findByTestId("team-join-error", {}, { timeout: 5000 })).textContent).toContain(t.joinNotFound);
    expect(calls(be, "AcceptInvitation")[0].body).toEqual({ code: "482913" });
  });

  it("joining opens the team's pipeline", async () => {
    signIn();
    backend({
      "TeamsService/AcceptInvitation": () => ({ json: { team: team("member") } }),
      "TeamsService/ListTeams": () => ({ json: { data: [team("member")] } }),
      "TeamsService/ListMembers": () => ({ json: { data: members } }),
      "TeamsService/ListPipeline": () => ({ json: { data: [] } }),
    });
    const { router } = renderApp("/teams/join?code=482913");
    fireEvent.click(await screen.findByTestId("team-join-submit"));
    await waitFor(() => expect(router.state.location.pathname).toBe("/pipeline"));
    expect(router.state.location.search).toBe("?team=team-1");
    await waitFor(() => expect(toasts()).toContain(t.joined("ทีมประมูล")));
  });
});
