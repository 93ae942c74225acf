/**
 * The in-memory half of the session: the access token never touches browser
 * storage (the refresh token lives in an HttpOnly cookie). The auth store
 * wires the provider (password or LINE) and what happens when the session
 * expires through configureSession, so the transport stays free of React.
 */
export type AuthProvider = "password" | "line";

type SessionHooks = {
  getProvider: () => AuthProvider;
  onCredentialsCleared: (reason: "expired" | "user-not-found") => void;
};

let accessToken: string | null = null;
let hooks: SessionHooks = {
  getProvider: () => "password",
  onCredentialsCleared: () => {},
};

export function configureSession(h: Partial<SessionHooks>): void {
  hooks = { ...hooks, ...h };
}

export function getAccessToken(): string | null {
  return accessToken;
}

const tokenListeners = new Set<(token: string | null) => void>();

export function setAccessToken(token: string | null): void {
  const next = token && token.length > 0 ? token : null;
  if (next === accessToken) return;
  accessToken = next;
  tokenListeners.forEach((fn) => fn(next));
}

/** Follow the access token (a refresh re-authenticates the bell's socket). */
export function onAccessTokenChange(fn: (token: string | null) => void): () => void {
  tokenListeners.add(fn);
  return () => tokenListeners.delete(fn);
}

export function getProvider(): AuthProvider {
  return hooks.getProvider();
}

/** Forget the token and tell the app (which clears the persisted user). */
export function clearCredentials(reason: "expired" | "user-not-found"): void {
  setAccessToken(null);
  hooks.onCredentialsCleared(reason);
}
