import { describe, expect, it } from "vitest";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser, type Call } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { msg, th } from "@/i18n/th";

const t = th.notifications;

const settings = {
  bellEnabled: true,
  emailEnabled: false,
  emailDigest: "daily",
  lineEnabled: false,
  lineUserId: "",
  notifyAnnouncements: true,
  notifySearchMatches: true,
  notifyPayments: true,
};

const item = {
  id: "a",
  title: "โครงการใหม่ตรงกับ \"สะพาน\"",
  message: "จ้างก่อสร้างสะพาน",
  category: "search_match",
  priority: "normal",
  isRead: false,
  type: "bell_notification",
  createdAt: "2026-11-20T02:00:00Z",
};

function backend(extra: Record<string, (c: Call) => { status?: number; json: unknown; headers?: Record<string, string> }> = {}) {
  useAuthStore.setState({ user: testUser });
  setAccessToken("tok");
  const be = createFakeBackend({
    "NotificationService/GetUnreadCount": () => ({ json: { unreadCount: 1 } }),
    "NotificationService/ListNotifications": () => ({ json: { notifications: [item], total: 1, unreadCount: 1 } }),
    "NotificationService/GetNotificationSettings": () => ({ json: { settings } }),
    "NotificationService/GetWebhook": () => ({ json: {} }),
    ...extra,
  });
  be.install();
  return be;
}

const lists = (be: ReturnType<typeof backend>) => be.calls.filter((c) => c.method === "ListNotifications").map((c) => c.body);

describe("the notifications page", () => {
  it("shows an import's grouped alert as one item: the Thai summary and a link to each project", async () => {
    const ids = ["69410000001", "69410000002", "69410000003", "69410000004", "69410000005", "69410000006", "69410000007"];
    const grouped = {
      ...item,
      id: "g",
      title: "7 โครงการใหม่ตรงกับการค้นหาที่บันทึกไว้",
      message: "จ้างก่อสร้างสะพาน, จ้างก่อสร้างถนน, จ้างก่อสร้างอาคาร และอีก 4 โครงการ",
      link: "/notifications",
      projectIds: ids,
    };
    backend({ "NotificationService/ListNotifications": () => ({ json: { notifications: [grouped], total: 1, unreadCount: 1 } }) });
    renderApp("/notifications");
    const page = await screen.findByTestId("notifications-page");
    const row = await within(page).findByTestId("bell-item");
    expect(within(row).getByText("7 โครงการใหม่ตรงกับการค้นหาที่บันทึกไว้")).toBeTruthy();
    const list = within(row).getByRole("list", { name: t.groupedProjects(7) });
    const hrefs = () => within(list).getAllByRole("link").map((a) => a.getAttribute("href"));
    expect(hrefs()).toEqual(ids.slice(0, 5).map((id) => `/project-details/${id}`));
    fireEvent.click(within(row).getByRole("button", { name: t.showAllProjects(2) }));
    await waitFor(() => expect(hrefs()).toEqual(ids.map((id) => `/project-details/${id}`)));
    // One item, no second "open" link beside the projects.
    expect(within(page).getAllByTestId("bell-item")).toHaveLength(1);
    expect(within(row).queryByRole("link", { name: t.open })).toBeNull();
  });

  it("has no test-notification button: it is the customer's inbox", async () => {
    backend();
    renderApp("/notifications");
    const page = await screen.findByTestId("notifications-page");
    await within(page).findByTestId("bell-item");
    expect(within(page).queryByRole("button", { name: t.sendTest })).toBeNull();
    // The inbox's own actions stay.
    expect(within(page).getByRole("button", { name: t.markAllRead })).toBeTruthy();
  });

  it("filters with the app's controls: every category in its select, the read state as a segmented choice", async () => {
    const be = backend();
    renderApp("/notifications");
    const page = await screen.findByTestId("notifications-page");
    await within(page).findByTestId("bell-item");

    const category = within(page).getByRole("combobox", { name: t.filterCategory });
    expect(category.closest("label")?.className).toBe("control");
    const options = Array.from((category as HTMLSelectElement).options).map((o) => o.value);
    expect(options).toEqual(["", "search_match", "project_update", "competitor_win", "deadline", "team_mention", "team_update", "payment", "system_alert"]);
    fireEvent.change(category, { target: { value: "deadline" } });
    await waitFor(() => expect(lists(be).at(-1)).toMatchObject({ category: "deadline", page: 1 }));

    const state = within(page).getByRole("group", { name: t.filterState });
    expect(state.className).toBe("segmented");
    const unread = within(state).getByRole("button", { name: t.filterUnread });
    fireEvent.click(unread);
    expect(unread.getAttribute("aria-pressed")).toBe("true");
    expect(within(state).getByRole("button", { name: t.filterAll }).getAttribute("aria-pressed")).toBe("false");
    await waitFor(() => expect(lists(be).at(-1)).toMatchObject({ category: "deadline", isRead: false }));
  });
});

describe("the notification-settings page", () => {
  it("sends a test notification to the bell and says where to look", async () => {
    const be = backend({
      "NotificationService/CreateTestNotification": () => ({ json: { message: "Test notification created", notification: item } }),
    });
    renderApp("/user-settings/notification-settings");
    fireEvent.click(await screen.findByTestId("settings-test-notification"));
    await screen.findByText(t.testSent);
    expect(be.calls.filter((c) => c.method === "CreateTestNotification")).toHaveLength(1);
  });

  it("a refused test says so in Thai, not as a success", async () => {
    backend({
      "NotificationService/CreateTestNotification": () => connectError(429, "Too many requests"),
    });
    renderApp("/user-settings/notification-settings");
    fireEvent.click(await screen.findByTestId("settings-test-notification"));
    await screen.findByText(msg("Failed to send the test notification"));
    expect(screen.queryByText(t.testSent)).toBeNull();
  });
});
