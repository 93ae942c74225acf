import { describe, expect, it } from "vitest";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { webhookText } from "../webhook-text";

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

describe("the webhook settings", () => {
  it("sets a webhook, shows its secret once, then the address and the delivery log", async () => {
    useAuthStore.setState({ user: testUser });
    setAccessToken("tok");
    let hook: unknown = undefined;
    let deliveries: unknown[] = [];
    const be = createFakeBackend({
      "NotificationService/GetUnreadCount": () => ({ json: { unreadCount: 0 } }),
      "NotificationService/GetNotificationSettings": () => ({ json: { settings } }),
      "NotificationService/GetWebhook": () => ({ json: { webhook: hook, deliveries } }),
      "NotificationService/SetWebhook": (c) => {
        if (!String(c.body.url).startsWith("https://")) return connectError(400, "url must be an https:// address");
        hook = { url: c.body.url, createdAt: "2026-11-25T02:00:00Z", secretHint: "x9Qz" };
        deliveries = [
          { deliveryId: "2", title: "โครงการใหม่ตรงกับ \"สะพาน\"", status: "pending", attempts: 1, lastStatusCode: 503, lastError: "HTTP 503", createdAt: "2026-11-25T02:05:00Z", nextAttemptAt: "2026-11-25T02:06:00Z" },
          { deliveryId: "1", title: "ประกาศใหม่", status: "sent", attempts: 1, lastStatusCode: 200, createdAt: "2026-11-25T02:01:00Z" },
        ];
        return { json: { webhook: hook, secret: "whsec_abcdefghijklmnopqrstuvwxyz0123456789x9Qz" } };
      },
    });
    be.install();
    renderApp("/user-settings/notification-settings");
    const section = await screen.findByTestId("webhook-section");
    const input = await within(section).findByTestId("webhook-url");

    fireEvent.change(input, { target: { value: "http://hooks.example.com/in" } });
    fireEvent.click(within(section).getByTestId("webhook-save"));
    expect((await within(section).findByTestId("webhook-error")).textContent).toBe(webhookText.urlInvalid);

    fireEvent.change(input, { target: { value: "https://hooks.example.com/in" } });
    fireEvent.click(within(section).getByTestId("webhook-save"));
    const secret = await within(section).findByTestId("webhook-secret");
    expect(secret.textContent).toContain("whsec_abcdefghijklmnopqrstuvwxyz0123456789x9Qz");
    expect(be.calls.filter((c) => c.method === "SetWebhook").at(-1)!.body).toEqual({ url: "https://hooks.example.com/in" });

    const current = await within(section).findByTestId("webhook-current");
    expect(current.textContent).toContain("https://hooks.example.com/in");
    expect(current.textContent).toContain(webhookText.hint("x9Qz"));
    await waitFor(() => expect(within(section).getAllByTestId("webhook-log-item")).toHaveLength(2));
    const [pending, sent] = within(section).getAllByTestId("webhook-log-item");
    expect(pending.textContent).toContain(webhookText.status.pending);
    expect(pending.textContent).toContain(webhookText.http(503));
    expect(pending.textContent).toContain("HTTP 503");
    expect(sent.textContent).toContain(webhookText.status.sent);

    fireEvent.click(within(section).getByTestId("webhook-secret-done"));
    expect(within(section).queryByTestId("webhook-secret")).toBeNull();
  });
});
