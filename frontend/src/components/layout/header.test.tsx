import { describe, expect, it, vi, afterEach } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser } from "@/testing/fake-backend";
import { useAuthStore } from "@/stores/auth-store";
import { getAccessToken, setAccessToken } from "@/lib/session";
import { initialsOf } from "@/components/ui/avatar";
import { msg, th } from "@/i18n/th";

const tiers = { "SubscriptionService/ListTiers": () => ({ json: { tierDetails: [] } }) };

describe("header", () => {
  afterEach(() => vi.useRealTimers());

  it("logged out: the six links plus sign-up and login, the current one marked", async () => {
    createFakeBackend(tiers).install();
    renderApp("/");
    const nav = await screen.findAllByRole("navigation", { name: th.nav.mainNav });
    const labels = Array.from(nav[0].querySelectorAll("a")).map((a) => a.textContent);
    expect(labels).toEqual([th.nav.home, th.nav.features, th.nav.search, th.nav.pricing, th.nav.faq, th.nav.contact]);
    const contact = Array.from(nav[0].querySelectorAll("a")).find((a) => a.textContent === th.nav.contact)!;
    expect(contact.getAttribute("href")).toBe("/user-settings/contact-us");
    expect(Array.from(nav[0].querySelectorAll("a[aria-current=page]")).map((a) => a.textContent)).toEqual([th.nav.home]);
    expect(screen.getAllByRole("link", { name: th.nav.signup }).length).toBeGreaterThan(0);
    expect(screen.getAllByRole("link", { name: th.nav.login }).length).toBeGreaterThan(0);
  });

  it("signed in: the app's menu (search, my projects, market, the team's pipeline, notifications, settings) instead of the marketing one, the current route marked", async () => {
    createFakeBackend(tiers).install();
    useAuthStore.setState({ user: testUser });
    renderApp("/my-projects");
    // The slide-in menu is closed (aria-hidden) yet renders the same list.
    const [desktop, mobile] = await screen.findAllByRole("navigation", { name: th.nav.mainNav, hidden: true });
    for (const nav of [desktop, mobile]) {
      const links = Array.from(nav.querySelectorAll("a"));
      expect(links.map((a) => a.textContent)).toEqual([th.nav.search, th.nav.myProjects, th.nav.market, th.nav.pipeline, th.nav.notifications, th.nav.settings]);
      expect(links.map((a) => a.getAttribute("href"))).toEqual(["/search", "/my-projects", "/market", "/pipeline", "/notifications", "/user-settings"]);
      expect(links.filter((a) => a.getAttribute("aria-current") === "page").map((a) => a.textContent)).toEqual([th.nav.myProjects]);
      for (const marketing of [th.nav.features, th.nav.pricing, th.nav.faq]) expect(within(nav).queryByRole("link", { name: marketing, hidden: true })).toBeNull();
    }
    // The avatar menu stays beside it.
    expect(screen.getByTestId("user-menu-button")).toBeTruthy();
  });

  it("signed in: a settings page and a project's page mark their entries", async () => {
    createFakeBackend(tiers).install();
    useAuthStore.setState({ user: testUser });
    const { router } = renderApp("/user-settings/contact-us");
    const current = async () => {
      const [desktop] = await screen.findAllByRole("navigation", { name: th.nav.mainNav });
      return Array.from(desktop.querySelectorAll("a[aria-current=page]")).map((a) => a.textContent);
    };
    await waitFor(async () => expect(await current()).toEqual([th.nav.settings]));
    await act(async () => {
      await router.navigate("/project-details/69119900990");
    });
    await waitFor(async () => expect(await current()).toEqual([th.nav.search]));
  });

  it("logged in: avatar menu with name, e-mail, Settings and Logout", async () => {
    createFakeBackend(tiers).install();
    useAuthStore.setState({ user: testUser });
    renderApp("/");
    fireEvent.click(await screen.findByTestId("user-menu-button"));
    expect(screen.getByTestId("user-menu-name").textContent).toBe(testUser.name);
    expect(screen.getByTestId("user-menu-email").textContent).toBe(testUser.email);
    expect(screen.getByRole("menuitem", { name: th.nav.settings }).getAttribute("href")).toBe("/user-settings");
    expect(screen.getByRole("menuitem", { name: th.nav.logout })).toBeTruthy();
  });

  it("avatar: picture, else initials from name or username, else an icon", () => {
    expect(initialsOf("Somchai Jaidee")).toBe("SJ");
    expect(initialsOf("สมชาย ใจดี")).toBe("สจ"); // leading vowels skipped: the initial consonant
    expect(initialsOf("", "bidmaster")).toBe("B");
    expect(initialsOf("", "")).toBe("");
  });

  it("mobile menu locks body scroll while open", async () => {
    createFakeBackend(tiers).install();
    renderApp("/");
    // The home page (lazy) is on screen: no later re-render resets the menu.
    await screen.findByRole("heading", { level: 1, name: th.home.heroTitle }, { timeout: 10_000 });
    fireEvent.click(screen.getByTestId("menu-toggle"));
    expect(screen.getByTestId("mobile-menu").className).toContain("open");
    expect(document.body.style.overflow).toBe("hidden");
    fireEvent.keyDown(document, { key: "Escape" });
    expect(screen.getByTestId("mobile-menu").className).not.toContain("open");
    expect(document.body.style.overflow).toBe("");
  });

  it("logout: 'Logged out successfully.', state cleared, /login after 100 ms", async () => {
    const be = createFakeBackend({ "AuthService/Logout": () => ({ json: { message: "ok" } }), ...tiers });
    be.install();
    useAuthStore.setState({ user: testUser, email: testUser.email });
    setAccessToken("tok");
    const { router } = renderApp("/search");
    fireEvent.click(await screen.findByTestId("user-menu-button"));
    vi.useFakeTimers();
    await act(async () => {
      fireEvent.click(screen.getByRole("menuitem", { name: th.nav.logout }));
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(screen.getByText(msg("Logged out successfully."))).toBeTruthy();
    expect(useAuthStore.getState().user).toBeNull();
    expect(getAccessToken()).toBeNull();
    expect(router.state.location.pathname).toBe("/search");
    await act(async () => {
      await vi.advanceTimersByTimeAsync(100);
    });
    vi.useRealTimers();
    await waitFor(() => expect(router.state.location.pathname).toBe("/login"));
    expect(be.calls.find((c) => c.method === "Logout")?.headers.get("x-requested-with")).toBe("BidRadar");
  });

  it("logout failure: 'Logout failed, please try again.' and the session stays", async () => {
    createFakeBackend({ "AuthService/Logout": () => connectError(503, "down"), ...tiers }).install();
    useAuthStore.setState({ user: testUser });
    renderApp("/");
    fireEvent.click(await screen.findByTestId("user-menu-button"));
    await act(async () => {
      fireEvent.click(screen.getByRole("menuitem", { name: th.nav.logout }));
    });
    await waitFor(() => expect(screen.getByText(msg("Logout failed, please try again."))).toBeTruthy());
    expect(useAuthStore.getState().user).not.toBeNull();
  });
});
