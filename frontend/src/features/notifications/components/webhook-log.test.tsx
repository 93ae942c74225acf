import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { createFakeBackend, testUser } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { webhookText } from "../webhook-text";

const settings = { bellEnabled: true, emailDigest: "daily", notifyAnnouncements: true, notifySearchMatches: true, notifyPayments: true };

describe("the webhook delivery log", () => {
  it("says in Thai why a delivery failed, never the server's raw words", async () => {
    useAuthStore.setState({ user: testUser });
    setAccessToken("tok");
    const failed = (id: string, lastError: string, lastStatusCode = 0) => ({
      deliveryId: id, title: `แจ้งเตือน ${id}`, status: "pending", attempts: 1, lastStatusCode, lastError,
      createdAt: "2026-11-25T02:05:00Z", nextAttemptAt: "2026-11-25T02:06:00Z",
    });
    createFakeBackend({
      "NotificationService/GetUnreadCount": () => ({ json: { unreadCount: 0 } }),
      "NotificationService/GetNotificationSettings": () => ({ json: { settings } }),
      "NotificationService/GetWebhook": () => ({
        json: {
          webhook: { url: "https://hooks.example.com/in", createdAt: "2026-11-25T02:00:00Z", secretHint: "x9Qz" },
          deliveries: [
            failed("1", "address not allowed"),
            failed("2", "timed out"),
            failed("3", "connection refused"),
            failed("4", "HTTP 503", 503),
            failed("5", "dial tcp 10.0.0.7:443: connect: connection refused"),
          ],
        },
      }),
    }).install();
    renderApp("/user-settings/notification-settings");
    const section = await screen.findByTestId("webhook-section");
    await waitFor(() => expect(within(section).getAllByTestId("webhook-log-item")).toHaveLength(5));
    const [notAllowed, timedOut, refused, status, raw] = within(section).getAllByTestId("webhook-log-item");
    expect(notAllowed.textContent).toContain(webhookText.problems["address not allowed"]);
    expect(timedOut.textContent).toContain(webhookText.problems["timed out"]);
    expect(refused.textContent).toContain(webhookText.problems["connection refused"]);
    expect(status.textContent).toContain(webhookText.http(503));
    expect(raw.textContent).toContain(webhookText.problemOther);
    for (const item of [notAllowed, timedOut, refused, raw]) expect(item.textContent).not.toMatch(/[a-z]{4,}/);
  });
});
