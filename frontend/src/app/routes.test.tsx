import { describe, expect, it } from "vitest";
import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser } from "@/testing/fake-backend";
import { useAuthStore } from "@/stores/auth-store";
import { msg, th } from "@/i18n/th";

const tiers = { "SubscriptionService/ListTiers": () => ({ json: { tierDetails: [] } }) };

describe("guards (docs/product.md#roles-and-permissions)", () => {
  for (const path of ["/project-details", "/user-settings/user-info", "/user-settings", "/payment"]) {
    it(`${path} sends a visitor to /login`, async () => {
      const { router } = renderApp(path);
      await waitFor(() => expect(router.state.location.pathname).toBe("/login"));
      expect((router.state.location.state as { from: string }).from).toBe(path);
      expect(await screen.findByTestId("login-form")).toBeTruthy();
    });
  }

  it("/search stays open to visitors", async () => {
    const { router } = renderApp("/search");
    expect(await screen.findByRole("heading", { name: th.titles.search })).toBeTruthy();
    expect(router.state.location.pathname).toBe("/search");
  });

  it("/user-settings redirects a user to user-info inside the settings layout", async () => {
    useAuthStore.setState({ user: testUser });
    const { router } = renderApp("/user-settings");
    await waitFor(() => expect(router.state.location.pathname).toBe("/user-settings/user-info"));
    expect(await screen.findByRole("heading", { name: th.pages.settings["user-info"] })).toBeTruthy();
    expect(screen.getByRole("navigation", { name: th.pages.settingsNav })).toBeTruthy();
  });

  it("login brings the visitor back to the page they wanted", async () => {
    const be = createFakeBackend({
      "AuthService/Login": () => ({ json: { message: "ok", accessToken: "tok", user: testUser } }),
    });
    be.install();
    const { router } = renderApp("/payment");
    await screen.findByTestId("login-form");
    fireEvent.change(screen.getByLabelText(th.auth.usernameOrEmail), { target: { value: "somchai" } });
    fireEvent.change(screen.getByLabelText(th.auth.password), { target: { value: "correct horse" } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: th.auth.loginButton }));
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/payment"));
    expect(be.calls.find((c) => c.method === "Login")!.body).toEqual({ username: "somchai", password: "correct horse" });
    expect(await screen.findByText(msg("Login successful."))).toBeTruthy();
  });
});

describe("pages", () => {
  it("unknown paths show the 404 page with header, image and footer", async () => {
    renderApp("/no/such/page");
    expect(await screen.findByTestId("not-found")).toBeTruthy();
    expect(document.title).toBe("ไม่พบหน้าที่ค้นหา - 404 Not Found");
    expect(screen.getByTestId("site-header")).toBeTruthy();
    expect(screen.getByTestId("site-footer")).toBeTruthy();
    expect(screen.getByRole("img", { name: "404" })).toBeTruthy();
  });

  it("/test shows the loading skeleton", async () => {
    renderApp("/test");
    expect(await screen.findByTestId("page-skeleton")).toBeTruthy();
    expect(document.title).toBe(`${th.titles.test} - BidRadar Thailand`);
  });

  it("home has #features, #pricing (from ListTiers) and #faq, title suffix '{product} Thailand'", async () => {
    const be = createFakeBackend({
      "SubscriptionService/ListTiers": () => ({
        json: {
          tierDetails: [
            { tier: "free", label: "ฟรี", price: 0, rank: 0, combinationLimits: { searchCombination: 3, searchCombinationMonth: 30 } },
            { tier: "pro", label: "มืออาชีพ", price: 1490, priceYearly: 14900, rank: 2, combinationLimits: { searchCombination: 50 } },
          ],
        },
      }),
    });
    be.install();
    const { container } = renderApp("/");
    expect(await screen.findByTestId("tier-pro")).toBeTruthy();
    expect(screen.getByTestId("tier-pro").textContent).toContain("มืออาชีพ");
    expect(screen.getByTestId("tier-pro").textContent).toMatch(/1,490/);
    for (const id of ["features", "pricing", "faq"]) expect(container.querySelector(`#${id}`)).toBeTruthy();
    expect(document.title).toMatch(/ - BidRadar Thailand$/);
    expect(be.calls[0].method).toBe("ListTiers");
  });

  it("footer: links and the current year", async () => {
    const be = createFakeBackend(tiers);
    be.install();
    renderApp("/");
    const footer = await screen.findByTestId("site-footer");
    for (const l of [th.footer.about, th.footer.privacy, th.footer.licensing, th.footer.contact]) expect(footer.textContent).toContain(l);
    expect(screen.getByTestId("copyright").textContent).toContain(String(new Date().getFullYear()));
  });
});

describe("login with two-step verification", () => {
  it("asks for the e-mailed code, then signs in", async () => {
    const be = createFakeBackend({
      "AuthService/Login": () => ({ json: { message: "otp sent", twoStepVerification: "enabled", email: testUser.email, expiresIn: 300 } }),
      "AuthService/VerifyLoginOtp": (c) =>
        c.body.otp === "123456" ? { json: { message: "Login successful.", accessToken: "tok", user: testUser } } : connectError(400, "Invalid verification code", "otp-invalid"),
      ...tiers,
    });
    be.install();
    const { router } = renderApp("/login");
    fireEvent.change(await screen.findByLabelText(th.auth.usernameOrEmail), { target: { value: "somchai" } });
    fireEvent.change(screen.getByLabelText(th.auth.password), { target: { value: "pw12345678" } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: th.auth.loginButton }));
    });
    expect(await screen.findByText(th.auth.twoStepLead(testUser.email))).toBeTruthy();
    expect(useAuthStore.getState().otpRequired).toBe(true);
    const boxes = screen.getAllByRole("textbox");
    await act(async () => {
      fireEvent.paste(boxes[0], { clipboardData: { getData: () => "111111" } });
    });
    expect(await screen.findByTestId("otp-error")).toBeTruthy();
    await act(async () => {
      fireEvent.paste(screen.getAllByRole("textbox")[0], { clipboardData: { getData: () => "123456" } });
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(useAuthStore.getState().user?.username).toBe("somchai");
    expect(useAuthStore.getState().otpRequired).toBe(false);
  });

  it("an inactive account is not toasted and goes to 'Activate Your Account'", async () => {
    const be = createFakeBackend({ "AuthService/Login": () => connectError(403, "Account is inactive. Please verify your email to activate your account.", "account-inactive") });
    be.install();
    const { router } = renderApp("/login");
    fireEvent.change(await screen.findByLabelText(th.auth.usernameOrEmail), { target: { value: "new@example.co.th" } });
    fireEvent.change(screen.getByLabelText(th.auth.password), { target: { value: "pw12345678" } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: th.auth.loginButton }));
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/verify-registration"));
    expect(await screen.findByRole("heading", { name: th.auth.activateTitle })).toBeTruthy();
    expect(screen.queryAllByTestId("toast")).toHaveLength(0);
  });
});

describe("unverified account: one flow for a username or an e-mail", () => {
  for (const typed of ["new@example.co.th", "newuser"]) {
    it(`login as "${typed}" → 'Activate Your Account' on /verify-registration → Activate Account → the code boxes`, async () => {
      sessionStorage.clear();
      const be = createFakeBackend({
        "AuthService/Login": () => connectError(403, "Account is inactive. Please verify your email to activate your account.", "account-inactive"),
        "AuthService/ResendRegistrationOtp": () => ({ json: { expiresIn: 300 } }),
      });
      be.install();
      const { router } = renderApp("/login");
      fireEvent.change(await screen.findByLabelText(th.auth.usernameOrEmail, {}, { timeout: 5000 }), { target: { value: typed } });
      fireEvent.change(screen.getByLabelText(th.auth.password), { target: { value: "pw12345678" } });
      await act(async () => {
        fireEvent.click(screen.getByRole("button", { name: th.auth.loginButton }));
      });
      await waitFor(() => expect(router.state.location.pathname).toBe("/verify-registration"), { timeout: 5000 });
      expect(router.state.location.search).toBe("?inactive=true");
      expect(await screen.findByRole("heading", { name: th.auth.activateTitle }, { timeout: 5000 })).toBeTruthy();
      expect(screen.queryAllByTestId("toast")).toHaveLength(0);
      if (!typed.includes("@")) {
        // The username names the account; the code goes to the e-mail it was registered with.
        expect(screen.getByText(th.activateByUsername.lead("newuser"))).toBeTruthy();
        await act(async () => {
          fireEvent.click(screen.getByRole("button", { name: th.auth.activateButton }));
        });
        expect(await screen.findByText(th.auth.validation.email)).toBeTruthy();
        fireEvent.change(screen.getByLabelText(th.auth.email), { target: { value: "new@example.co.th" } });
      } else {
        expect(screen.queryByLabelText(th.auth.email)).toBeNull();
      }
      await act(async () => {
        fireEvent.click(screen.getByRole("button", { name: th.auth.activateButton }));
      });
      expect(await screen.findByRole("heading", { name: th.auth.verifyTitle }, { timeout: 5000 })).toBeTruthy();
      expect(screen.getAllByRole("textbox")).toHaveLength(6);
      expect(be.calls.find((c) => c.method === "ResendRegistrationOtp")!.body).toEqual({ email: "new@example.co.th" });
    });
  }
});

describe("verify-registration", () => {
  it("without an e-mail redirects to /signup with 'Email not found'", async () => {
    const { router } = renderApp("/verify-registration");
    await waitFor(() => expect(router.state.location.pathname).toBe("/signup"));
    expect(await screen.findByText(msg("Email not found. Please return to signup."))).toBeTruthy();
  });

  it("inactive=true shows the activation variant; Activate Account sends a code and opens the boxes", async () => {
    const be = createFakeBackend({ "AuthService/ResendRegistrationOtp": () => ({ json: { expiresIn: 300 } }) });
    be.install();
    renderApp("/verify-registration?inactive=true", { state: { email: "a@example.co.th" } });
    const btn = await screen.findByRole("button", { name: th.auth.activateButton });
    await act(async () => {
      fireEvent.click(btn);
    });
    expect(await screen.findByRole("heading", { name: th.auth.verifyTitle })).toBeTruthy();
    expect(screen.getAllByRole("textbox")).toHaveLength(6);
    expect(be.calls[0].body).toEqual({ email: "a@example.co.th" });
  });

  it("success with a user goes to /, without one to /login", async () => {
    const be = createFakeBackend({
      "AuthService/VerifyRegistration": () => ({ json: { message: "Registration verified" } }),
    });
    be.install();
    const { router } = renderApp("/verify-registration", { state: { email: "a@example.co.th" } });
    expect(await screen.findByText(th.auth.backToRegistration)).toBeTruthy();
    await act(async () => {
      fireEvent.paste(screen.getAllByRole("textbox")[0], { clipboardData: { getData: () => "123456" } });
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/login"));
    expect(useAuthStore.getState().registrationVerified).toBe(true);
  });

  it("'User verified' fetches the user and goes home", async () => {
    const be = createFakeBackend({
      "AuthService/VerifyRegistration": () => ({ json: { message: "User verified successfully", accessToken: "tok", user: testUser } }),
      ...tiers,
    });
    be.install();
    const { router } = renderApp("/verify-registration", { state: { email: testUser.email } });
    await screen.findByText(th.auth.backToRegistration);
    await act(async () => {
      fireEvent.paste(screen.getAllByRole("textbox")[0], { clipboardData: { getData: () => "123456" } });
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(useAuthStore.getState().user?.email).toBe(testUser.email);
  });
});
