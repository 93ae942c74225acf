import { describe, expect, it } from "vitest";
import { ConnectError, createClient } from "@connectrpc/connect";
import { AuthService } from "@/gen/auth/v1/auth_pb";
import { SubscriptionService } from "@/gen/subscription/v1/subscription_pb";
import { getOption } from "@bufbuild/protobuf";
import { Audience, rule } from "@/gen/access/v1/access_pb";
import { InterestsService } from "@/gen/interests/v1/interests_pb";
import { NotificationService } from "@/gen/notification/v1/notification_pb";
import { ProjectsService } from "@/gen/projects/v1/projects_pb";
import { connectError, createFakeBackend, testUser } from "@/testing/fake-backend";
import { getAccessToken, setAccessToken } from "./session";
import { requiresAuth, REQUEST_TIMEOUT_MS } from "./transport";
import { useAuthStore } from "@/stores/auth-store";

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("transport", () => {
  it("refuses an authenticated call without a token: 'Authentication required', no request sent", async () => {
    const be = createFakeBackend({ "AuthService/GetMe": () => ({ json: { user: testUser } }) });
    const client = createClient(AuthService, be.transport.transport);
    await expect(client.getMe({})).rejects.toMatchObject({ rawMessage: "Authentication required" });
    expect(be.calls).toHaveLength(0);
  });

  it("sends Bearer, credentials, the CSRF header and a 15 s timeout", async () => {
    const be = createFakeBackend({ "AuthService/GetMe": () => ({ json: { user: testUser } }) });
    setAccessToken("tok-1");
    const res = await createClient(AuthService, be.transport.transport).getMe({});
    expect(res.user?.username).toBe("somchai");
    const call = be.calls[0];
    expect(call.headers.get("authorization")).toBe("Bearer tok-1");
    expect(call.headers.get("x-requested-with")).toBe("BidRadar");
    expect(call.headers.get("connect-timeout-ms")).toBe(String(REQUEST_TIMEOUT_MS));
    expect(call.init.credentials).toBe("include");
  });

  it("runs ONE refresh for 20 concurrent 401s and replays every call with the new token", async () => {
    let refreshes = 0;
    const be = createFakeBackend({
      "AuthService/GetMe": (c) =>
        c.headers.get("authorization") === "Bearer fresh" ? { json: { user: testUser } } : connectError(401, "token expired"),
      "AuthService/RefreshToken": async () => {
        refreshes++;
        await delay(20); // the other 401s arrive while this one is in flight
        return { json: { accessToken: "fresh", refreshToken: "r2" } };
      },
    });
    setAccessToken("stale");
    const client = createClient(AuthService, be.transport.transport);
    const results = await Promise.all(Array.from({ length: 20 }, () => client.getMe({})));
    expect(results.every((r) => r.user?.email === testUser.email)).toBe(true);
    expect(refreshes).toBe(1);
    expect(be.transport.refreshCount()).toBe(1);
    expect(be.calls.filter((c) => c.method === "GetMe")).toHaveLength(40); // 20 failed + 20 replayed
    expect(getAccessToken()).toBe("fresh");
  });

  it("a 401 arriving after another call already refreshed replays without a second refresh", async () => {
    let refreshes = 0;
    const be = createFakeBackend({
      "AuthService/GetMe": (c) =>
        c.headers.get("authorization") === "Bearer fresh" ? { json: { user: testUser } } : connectError(401, "expired"),
      "AuthService/RefreshToken": () => {
        refreshes++;
        return { json: { accessToken: "fresh" } };
      },
    });
    setAccessToken("stale");
    const client = createClient(AuthService, be.transport.transport);
    await client.getMe({});
    // A call that was sent with the stale token before the refresh:
    await expect(be.transport.refreshAccessToken("stale")).resolves.toBe("fresh");
    expect(refreshes).toBe(1);
  });

  it("LINE sessions refresh through RefreshLineToken", async () => {
    const be = createFakeBackend({
      "AuthService/GetMe": (c) =>
        c.headers.get("authorization") === "Bearer line-fresh" ? { json: { user: testUser } } : connectError(401, "expired"),
      "AuthService/RefreshLineToken": () => ({ json: { accessToken: "line-fresh" } }),
    });
    useAuthStore.setState({ provider: "line" });
    setAccessToken("stale");
    await createClient(AuthService, be.transport.transport).getMe({});
    expect(be.calls.map((c) => c.method)).toEqual(["GetMe", "RefreshLineToken", "GetMe"]);
  });

  it("a refused refresh ends the session: 'Your session has expired. Please login again.', credentials cleared, every queued call rejected", async () => {
    const be = createFakeBackend({
      "AuthService/GetMe": () => connectError(401, "expired"),
      "AuthService/RefreshToken": () => connectError(401, "refresh token revoked"),
    });
    useAuthStore.setState({ user: testUser, email: testUser.email });
    setAccessToken("stale");
    const client = createClient(AuthService, be.transport.transport);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => client.getMe({})));
    for (const r of results) {
      expect(r.status).toBe("rejected");
      const reason: unknown = (r as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(ConnectError);
      expect((reason as ConnectError).rawMessage).toBe("Your session has expired. Please login again.");
    }
    expect(be.calls.filter((c) => c.method === "RefreshToken")).toHaveLength(1);
    expect(getAccessToken()).toBeNull();
    expect(useAuthStore.getState().user).toBeNull();
  });

  it("never refreshes on a public call's 401 (wrong password is not an expired session)", async () => {
    const be = createFakeBackend({ "AuthService/Login": () => connectError(401, "incorrect username or password") });
    setAccessToken("tok");
    await expect(createClient(AuthService, be.transport.transport).login({ username: "a", password: "b" })).rejects.toMatchObject({
      rawMessage: "incorrect username or password",
    });
    expect(be.calls.map((c) => c.method)).toEqual(["Login"]);
  });

  it("public tiers need no token", async () => {
    const be = createFakeBackend({ "SubscriptionService/ListTiers": () => ({ json: { tierDetails: [{ tier: "free" }] } }) });
    const res = await createClient(SubscriptionService, be.transport.transport).listTiers({ includeAll: true });
    expect(res.tierDetails[0].tier).toBe("free");
    expect(be.calls[0].headers.get("authorization")).toBeNull();
  });

  it("knows which methods need a user from the access rules in the protos", () => {
    expect(requiresAuth(AuthService.method.login)).toBe(false);
    expect(requiresAuth(AuthService.method.getMe)).toBe(true);
    expect(requiresAuth(SubscriptionService.method.listTiers)).toBe(false);
    expect(requiresAuth(SubscriptionService.method.getMySubscription)).toBe(true);
    expect(requiresAuth(ProjectsService.method.listProjects)).toBe(false);
    expect(requiresAuth(InterestsService.method.listActiveInterests)).toBe(true);
    // Every method of every service declares a rule.
    for (const svc of [AuthService, SubscriptionService, ProjectsService, InterestsService, NotificationService]) {
      for (const m of svc.methods) expect(getOption(m, rule).audience, `${svc.typeName}/${m.name}`).not.toBe(Audience.UNSPECIFIED);
    }
  });
});
