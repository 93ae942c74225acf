import { describe, expect, it } from "vitest";
import { render, screen, waitFor } from "@testing-library/react";
import { QueryClientProvider } from "@tanstack/react-query";
import { createQueryClient } from "@/lib/query-client";
import { getAccessToken } from "@/lib/session";
import { connectError, createFakeBackend, testUser } from "@/testing/fake-backend";
import { useAuthStore } from "@/stores/auth-store";
import { StartupGate } from "./provider";
import { Toaster } from "@/components/ui/toaster";
import { msg } from "@/i18n/th";

function renderGate() {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <StartupGate>
        <p>app ready</p>
      </StartupGate>
      <Toaster />
    </QueryClientProvider>,
  );
}

describe("start-up (docs/product.md#start-up)", () => {
  it("a visitor renders at once, with no server call", async () => {
    const be = createFakeBackend({});
    be.install();
    renderGate();
    expect(await screen.findByText("app ready")).toBeTruthy();
    expect(be.calls).toHaveLength(0);
  });

  it("shows the skeleton while the session is restored: refresh cookie → token → GetMe", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const be = createFakeBackend({
      "AuthService/RefreshToken": async () => {
        await gate;
        return { json: { accessToken: "restored" } };
      },
      "AuthService/GetMe": () => ({ json: { user: { ...testUser, name: "ชื่อใหม่" } } }),
    });
    be.install();
    useAuthStore.setState({ user: testUser });
    renderGate();
    expect(await screen.findByTestId("page-skeleton")).toBeTruthy();
    release();
    expect(await screen.findByText("app ready")).toBeTruthy();
    expect(getAccessToken()).toBe("restored");
    expect(useAuthStore.getState().user?.name).toBe("ชื่อใหม่");
    expect(be.calls.map((c) => c.method)).toEqual(["RefreshToken", "GetMe"]);
  });

  it("retries a failing restore up to 2 more times, then renders", async () => {
    const be = createFakeBackend({ "AuthService/RefreshToken": () => connectError(503, "unavailable") });
    be.install();
    useAuthStore.setState({ user: testUser });
    renderGate();
    expect(await screen.findByText("app ready", undefined, { timeout: 5000 })).toBeTruthy();
    expect(be.calls.filter((c) => c.method === "RefreshToken")).toHaveLength(3);
    expect(screen.getByText(msg("Service is currently unavailable. Please try again later."))).toBeTruthy();
  });

  it("an expired session is not retried: the user is logged out with 'Your session has expired'", async () => {
    const be = createFakeBackend({ "AuthService/RefreshToken": () => connectError(401, "Invalid refresh token", "refresh-token-invalid") });
    be.install();
    useAuthStore.setState({ user: testUser });
    renderGate();
    expect(await screen.findByText("app ready")).toBeTruthy();
    expect(be.calls).toHaveLength(1);
    expect(useAuthStore.getState().user).toBeNull();
    await waitFor(() => expect(screen.getByText(msg("Your session has expired. Please login again."))).toBeTruthy());
  });

  it("'User not found' on GetMe clears credentials: 'User not found. Your session is invalid.'", async () => {
    const be = createFakeBackend({
      "AuthService/RefreshToken": () => ({ json: { accessToken: "t" } }),
      "AuthService/GetMe": () => connectError(404, "User not found", "user-not-found"),
    });
    be.install();
    useAuthStore.setState({ user: testUser });
    renderGate();
    expect(await screen.findByText("app ready")).toBeTruthy();
    expect(useAuthStore.getState().user).toBeNull();
    expect(getAccessToken()).toBeNull();
    expect(screen.getByText(msg("User not found. Your session is invalid."))).toBeTruthy();
  });
});
