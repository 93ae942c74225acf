import { afterEach, describe, expect, it, vi } from "vitest";
import { getAccessToken } from "@/lib/session";
import { testUser } from "@/testing/fake-backend";
import { AUTH_STORAGE_KEY, DEFAULT_FILTER_PARAMS, useAuthStore } from "./auth-store";
import { BIDS_STORAGE_KEY, useBidsStore } from "./bids-store";
import { PERSIST_TIMEOUT_MS, waitForHydration, type PersistApi } from "./hydration";

describe("auth store", () => {
  it("keeps the access token in memory only; persists the user and e-mail", () => {
    useAuthStore.getState().signedIn(testUser, "secret-token", "password");
    expect(getAccessToken()).toBe("secret-token");
    const raw = localStorage.getItem(AUTH_STORAGE_KEY)!;
    expect(raw).toContain("somchai@example.co.th");
    expect(raw).not.toContain("secret-token");
    const persisted = (JSON.parse(raw) as { state: Record<string, unknown> }).state;
    expect(Object.keys(persisted).sort()).toEqual(["email", "filterParams", "otpExpiresIn", "otpRequired", "provider", "user"]);
  });

  it("clearAuth drops user, e-mail, OTP flag and token", () => {
    useAuthStore.getState().signedIn(testUser, "t", "line");
    useAuthStore.setState({ otpRequired: true });
    useAuthStore.getState().clearAuth();
    const s = useAuthStore.getState();
    expect([s.user, s.email, s.otpRequired, getAccessToken(), s.provider]).toEqual([null, "", false, null, "password"]);
  });

  it("defaults: filterParams page 1, per_page 10; OTP 300 s", () => {
    expect(useAuthStore.getState().filterParams).toEqual(DEFAULT_FILTER_PARAMS);
    expect(DEFAULT_FILTER_PARAMS.page).toBe(1);
    expect(DEFAULT_FILTER_PARAMS.per_page).toBe(10);
    expect(useAuthStore.getState().otpExpiresIn).toBe(300);
  });
});

describe("bids store", () => {
  it("persists under the key projectBids", () => {
    useBidsStore.getState().setBidPrice("66019123456", 1_250_000);
    useBidsStore.getState().setReductionPercent("66019123456", 3.5);
    const stored = JSON.parse(localStorage.getItem(BIDS_STORAGE_KEY)!) as { state: { bids: Record<string, { lastUpdated?: unknown }> } };
    const saved = stored.state.bids["66019123456"];
    expect(saved).toMatchObject({ bidPrice: 1_250_000, reductionPercent: 3.5 });
    expect(typeof saved.lastUpdated).toBe("string");
  });
});

describe("hydration gate", () => {
  afterEach(() => vi.useRealTimers());

  const fakeStore = () => {
    let done = false;
    const subs = new Set<() => void>();
    const api: PersistApi = {
      hasHydrated: () => done,
      onFinishHydration: (fn) => {
        subs.add(fn);
        return () => subs.delete(fn);
      },
    };
    return { api, finish: () => ((done = true), subs.forEach((f) => f())) };
  };

  it("resolves at once for stores already restored (synchronous localStorage)", async () => {
    await expect(waitForHydration([useAuthStore.persist, useBidsStore.persist])).resolves.toBe("hydrated");
  });

  it("waits for slow storage", async () => {
    const a = fakeStore();
    const p = waitForHydration([a.api]);
    a.finish();
    await expect(p).resolves.toBe("hydrated");
  });

  it("gives up after 5000 ms", async () => {
    vi.useFakeTimers();
    const a = fakeStore();
    const p = waitForHydration([a.api]);
    let settled = false;
    void p.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(PERSIST_TIMEOUT_MS - 1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(p).resolves.toBe("timeout");
    expect(PERSIST_TIMEOUT_MS).toBe(5000);
  });
});
