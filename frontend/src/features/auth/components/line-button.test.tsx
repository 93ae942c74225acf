import { describe, expect, it } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { createFakeBackend, testUser } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { th } from "@/i18n/th";

describe("LINE's button follows the server's login options", () => {
  for (const path of ["/login", "/signup"]) {
    it(`${path}: shown when LINE is configured`, async () => {
      const be = createFakeBackend({ "AuthService/GetLoginOptions": () => ({ json: { lineLogin: true } }) });
      be.install();
      renderApp(path);
      expect(await screen.findByTestId("line-login", {}, { timeout: 5000 })).toBeTruthy();
      expect(screen.getByText(th.auth.lineButton)).toBeTruthy();
      expect(screen.getByText(th.common.or)).toBeTruthy();
    });

    it(`${path}: hidden, with its "or", when LINE is not configured`, async () => {
      const be = createFakeBackend({ "AuthService/GetLoginOptions": () => ({ json: {} }) });
      be.install();
      renderApp(path);
      await screen.findByTestId(path === "/login" ? "login-form" : "signup-form", {}, { timeout: 5000 });
      await waitFor(() => expect(be.calls.some((c) => c.method === "GetLoginOptions")).toBe(true));
      // Let the answer render before asserting the absence.
      await new Promise((r) => setTimeout(r, 50));
      expect(screen.queryByTestId("line-login")).toBeNull();
      expect(screen.queryByText(th.common.or)).toBeNull();
    });
  }
});

describe("/user-settings/line-api follows them too", () => {
  for (const lineLogin of [true, false]) {
    it(`LINE ${lineLogin ? "configured: how to link" : "not configured: says linking is not available"}`, async () => {
      useAuthStore.setState({ user: testUser });
      setAccessToken("tok");
      createFakeBackend({ "AuthService/GetLoginOptions": () => ({ json: { lineLogin } }) }).install();
      renderApp("/user-settings/line-api");
      const help = await screen.findByTestId("line-help", {}, { timeout: 5000 });
      await waitFor(() => expect(help.textContent).toBe(lineLogin ? th.settingsPages.lineHowTo : th.lineUnavailable));
    });
  }
});
