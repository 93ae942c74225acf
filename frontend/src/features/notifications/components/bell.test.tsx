import { describe, expect, it } from "vitest";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { createFakeBackend, testUser } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { th } from "@/i18n/th";

const n = (id: string, read: boolean, title: string) => ({
  id,
  title,
  message: "จ้างก่อสร้างสะพาน — กรมทางหลวงชนบท งบประมาณ 4,500,000.00 บาท",
  category: "search_match",
  priority: "normal",
  isRead: read,
  type: "bell_notification",
  projectId: "69222222222",
  link: "/project-details/69222222222",
  createdAt: "2026-11-20T02:00:00Z",
});

describe("the bell", () => {
  it("shows the unread count, lists the latest, marks one read and all read", async () => {
    useAuthStore.setState({ user: testUser });
    setAccessToken("tok");
    let unread = 2;
    const be = createFakeBackend({
      "NotificationService/GetUnreadCount": () => ({ json: { unreadCount: unread } }),
      "NotificationService/ListNotifications": () => ({
        json: { notifications: [n("a", unread < 2, "โครงการใหม่ตรงกับ \"สะพาน\""), n("b", unread < 1, "ประกาศใหม่")], total: 2, unreadCount: unread },
      }),
      "NotificationService/MarkRead": () => {
        unread = 1;
        return { json: { message: "ok", unreadCount: 1 } };
      },
      "NotificationService/MarkAllRead": () => {
        unread = 0;
        return { json: { message: "ok", updatedCount: 1 } };
      },
    });
    be.install();
    renderApp("/my-projects");
    expect((await screen.findByTestId("bell-count")).textContent).toBe("2");
    expect(screen.getByTestId("bell-button").getAttribute("aria-label")).toBe(th.notifications.bellLabel(2));

    fireEvent.click(screen.getByTestId("bell-button"));
    const panel = await screen.findByTestId("bell-panel");
    await waitFor(() => expect(within(panel).getAllByTestId("bell-item")).toHaveLength(2));
    expect(within(panel).getAllByText(/4,500,000.00 บาท/)).toHaveLength(2);
    expect(within(panel).getAllByText(/20 พ.ย. 2569|20 พฤศจิกายน 2569/)).toHaveLength(2);

    fireEvent.click(within(panel).getAllByTestId("bell-mark-read")[0]);
    await waitFor(() => expect(screen.getByTestId("bell-count").textContent).toBe("1"));
    expect(be.calls.find((c) => c.method === "MarkRead")!.body).toEqual({ id: "a" });

    fireEvent.click(within(panel).getByTestId("bell-mark-all"));
    await waitFor(() => expect(screen.queryByTestId("bell-count")).toBeNull());
  });

  it("a competitor's win: its Thai category with the trophy, and the link to the project", async () => {
    useAuthStore.setState({ user: testUser });
    setAccessToken("tok");
    createFakeBackend({
      "NotificationService/GetUnreadCount": () => ({ json: { unreadCount: 1 } }),
      "NotificationService/ListNotifications": () => ({
        json: { notifications: [{ ...n("c", false, "คู่แข่งชนะงาน: บริษัท ทองคำบัว จำกัด"), category: "competitor_win" }], total: 1, unreadCount: 1 },
      }),
    }).install();
    renderApp("/my-projects");
    fireEvent.click(await screen.findByTestId("bell-button"));
    const panel = await screen.findByTestId("bell-panel");
    const cat = await within(panel).findByTestId("bell-category");
    expect(cat.textContent).toBe(th.notifications.categories.competitor_win);
    expect(cat.querySelector("svg")).not.toBeNull();
    expect(within(panel).getByRole("link", { name: th.notifications.open }).getAttribute("href")).toBe("/project-details/69222222222");
  });

  it("is absent for visitors", async () => {
    useAuthStore.setState({ user: null });
    setAccessToken(null);
    createFakeBackend({}).install();
    renderApp("/search");
    await screen.findByTestId("site-header");
    expect(screen.queryByTestId("bell-button")).toBeNull();
  });
});
