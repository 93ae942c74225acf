import {
  Code,
  ConnectError,
  createClient,
  createContextKey,
  type Interceptor,
  type Transport,
} from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { getOption, type DescMethod } from "@bufbuild/protobuf";
import { Audience, rule } from "@/gen/access/v1/access_pb";
import { AuthService } from "@/gen/auth/v1/auth_pb";
import { AUTH_REQUIRED, SESSION_EXPIRED } from "./errors";
import { clearCredentials, getAccessToken, getProvider, setAccessToken } from "./session";

/** Every call times out after 15 s (docs/product.md#base-path-and-transport). */
export const REQUEST_TIMEOUT_MS = 15_000;
/** The gateway's CSRF check for cookie-authenticated writes. */
export const CSRF_HEADER = "X-Requested-With";
export const CSRF_VALUE = "BidRadar";

/**
 * Per-call override of the authentication rule:
 * "auto" (default) uses requiresAuth, "required" always needs a token,
 * "optional" sends a token when there is one, never refreshes.
 */
export type AuthMode = "auto" | "required" | "optional";
export const AUTH_MODE = createContextKey<AuthMode>("auto", { description: "bidradar auth mode" });

/**
 * Whether a method needs a signed-in user: read from the access rule every
 * RPC declares in its proto (access.v1.rule), the same rule the services and
 * the gateway enforce. Only AUDIENCE_PUBLIC methods are open to visitors.
 */
export function requiresAuth(method: DescMethod): boolean {
  return getOption(method, rule).audience !== Audience.PUBLIC;
}

export type AppTransportOptions = {
  baseUrl: string;
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
};

function credentialedFetch(base?: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => (base ?? globalThis.fetch)(input, { ...init, credentials: "include" });
}

const csrfInterceptor: Interceptor = (next) => async (req) => {
  req.header.set(CSRF_HEADER, CSRF_VALUE);
  return next(req);
};

/**
 * The app's transport plus its refresh machinery. One refresh runs for any
 * number of concurrent 401s; queued calls replay with the new token.
 */
export function createAppTransport(opts: AppTransportOptions) {
  const common = {
    baseUrl: opts.baseUrl,
    useBinaryFormat: false,
    defaultTimeoutMs: opts.timeoutMs ?? REQUEST_TIMEOUT_MS,
    fetch: credentialedFetch(opts.fetch),
  };

  // Refresh calls go through a bare transport so they never recurse into the 401 logic.
  const refreshClient = createClient(AuthService, createConnectTransport({ ...common, interceptors: [csrfInterceptor] }));

  let inflight: Promise<string> | null = null;
  let refreshCount = 0;

  async function doRefresh(): Promise<string> {
    refreshCount++;
    try {
      const res =
        getProvider() === "line" ? await refreshClient.refreshLineToken({}) : await refreshClient.refreshToken({});
      if (!res.accessToken) throw new ConnectError("empty access token", Code.Unauthenticated);
      setAccessToken(res.accessToken);
      return res.accessToken;
    } catch (e) {
      const err = ConnectError.from(e);
      // A refused refresh ends the session; an outage does not (the user may retry).
      if (err.code === Code.Unauthenticated || err.code === Code.PermissionDenied || err.code === Code.NotFound) {
        clearCredentials("expired");
        throw new ConnectError(SESSION_EXPIRED, Code.Unauthenticated, undefined, undefined, err);
      }
      throw err;
    }
  }

  /**
   * Get a fresh access token. `staleToken` is the token a failed call used:
   * when another call already refreshed it, the current token is returned
   * without a second refresh.
   */
  function refreshAccessToken(staleToken: string | null): Promise<string> {
    const current = getAccessToken();
    if (current && current !== staleToken) return Promise.resolve(current);
    if (!inflight) {
      inflight = doRefresh().finally(() => {
        inflight = null;
      });
    }
    return inflight;
  }

  const authInterceptor: Interceptor = (next) => async (req) => {
    req.header.set(CSRF_HEADER, CSRF_VALUE);
    const mode = req.contextValues.get(AUTH_MODE);
    const needsAuth = mode === "required" || (mode === "auto" && requiresAuth(req.method));
    const token = getAccessToken();
    if (needsAuth && !token) throw new ConnectError(AUTH_REQUIRED, Code.Unauthenticated);
    if (token) req.header.set("Authorization", `Bearer ${token}`);
    try {
      return await next(req);
    } catch (e) {
      const err = ConnectError.from(e);
      if (!needsAuth || err.code !== Code.Unauthenticated || req.stream) throw err;
      const fresh = await refreshAccessToken(token);
      req.header.set("Authorization", `Bearer ${fresh}`);
      return await next(req);
    }
  };

  const transport: Transport = createConnectTransport({ ...common, interceptors: [authInterceptor] });

  return {
    transport,
    refreshAccessToken,
    /** How many refresh calls went out (tests and diagnostics). */
    refreshCount: () => refreshCount,
  };
}

export type AppTransport = ReturnType<typeof createAppTransport>;

let appTransport: AppTransport | null = null;

/** The browser's transport: one origin, the Go gateway (docs/architecture.md#request-path). */
export function getAppTransport(): AppTransport {
  if (!appTransport) appTransport = createAppTransport({ baseUrl: window.location.origin });
  return appTransport;
}

/** Tests swap the transport (e.g. createRouterTransport-backed fetch). */
export function setAppTransport(t: AppTransport | null): void {
  appTransport = t;
}
