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

export function setAccessToken(token: string | null): void {
  accessToken = token && token.length > 0 ? token : null;
}

export function getProvider(): AuthProvider {
  return hooks.getProvider();
}

/** Forget the token and tell the app (which clears the persisted user). */
export function clearCredentials(reason: "expired" | "user-not-found"): void {
  accessToken = null;
  hooks.onCredentialsCleared(reason);
}
