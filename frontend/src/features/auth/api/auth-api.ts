import { Code, ConnectError } from "@connectrpc/connect";
import { authClient } from "@/lib/clients";
import { clearCredentials, setAccessToken } from "@/lib/session";
import { getAppTransport } from "@/lib/transport";
import { isUserNotFound, USER_NOT_FOUND } from "@/lib/errors";
import { DEFAULT_OTP_SECONDS, toAppUser, useAuthStore, type AppUser } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { msg } from "@/i18n/th";

const store = () => useAuthStore.getState();

/**
 * Where a verification e-mail survives a reload (docs/product.md#verify-registration-screen: state
 * or session storage).
 */
export const VERIFY_EMAIL_KEY = "bidradar.verifyEmail";
export const LINE_LINK_KEY = "bidradar.lineLink";

export function rememberVerifyEmail(email: string): void {
  store().set({ email });
  try {
    sessionStorage.setItem(VERIFY_EMAIL_KEY, email);
  } catch {
    /* storage disabled: the router state still carries it */
  }
}

export function recallVerifyEmail(stateEmail?: unknown): string {
  if (typeof stateEmail === "string" && stateEmail) return stateEmail;
  try {
    return sessionStorage.getItem(VERIFY_EMAIL_KEY) ?? "";
  } catch {
    return "";
  }
}

/**
 * GET /users/me. A 404 'User not found' clears the stored credentials
 * (docs/product.md#session-and-connection) and yields null.
 */
export async function fetchMe(): Promise<AppUser | null> {
  try {
    const res = await authClient().getMe({});
    const user = toAppUser(res.user);
    if (user) store().set({ user, email: user.email });
    return user;
  } catch (e) {
    if (isUserNotFound(e)) {
      clearCredentials("user-not-found");
      toast.error(msg(USER_NOT_FOUND));
      return null;
    }
    throw e;
  }
}

/**
 * Start-up (docs/product.md#start-up): with a remembered user, rotate the refresh cookie into
 * an in-memory access token, then load the user. Visitors cost no request.
 * A refused refresh or missing user means "logged out", not a failure; only
 * network and server trouble throw (and are retried by the caller).
 */
export async function restoreSession(): Promise<AppUser | null> {
  if (!store().user) return null;
  try {
    await getAppTransport().refreshAccessToken(null);
  } catch (e) {
    const err = ConnectError.from(e);
    if (err.code === Code.Unauthenticated) {
      store().clearAuth();
      return null;
    }
    throw e;
  }
  return fetchMe();
}

export type LoginResult = { kind: "otp"; email: string; expiresIn: number } | { kind: "done"; user: AppUser | null };

/** Login (docs/product.md#login): two-step 'enabled' e-mails a code (otpRequired), else the user is loaded. */
export async function login(username: string, password: string): Promise<LoginResult> {
  const res = await authClient().login({ username, password });
  if (res.twoStepVerification === "enabled" && !res.accessToken) {
    const email = res.email || (username.includes("@") ? username : "");
    store().set({ otpRequired: true, email, otpExpiresIn: res.expiresIn || DEFAULT_OTP_SECONDS });
    return { kind: "otp", email, expiresIn: res.expiresIn || DEFAULT_OTP_SECONDS };
  }
  store().signedIn(toAppUser(res.user), res.accessToken, "password");
  const user = res.user ? toAppUser(res.user) : await fetchMe();
  return { kind: "done", user };
}

export async function verifyLoginOtp(email: string, otp: string): Promise<AppUser | null> {
  const res = await authClient().verifyLoginOtp({ email, otp });
  store().signedIn(toAppUser(res.user), res.accessToken, "password");
  return res.user ? toAppUser(res.user) : fetchMe();
}

export async function resendLoginOtp(email: string): Promise<number> {
  const res = await authClient().resendLoginOtp({ email });
  return res.expiresIn || DEFAULT_OTP_SECONDS;
}

export type RegisterInput = { username: string; email: string; password: string; name: string };

/** Registration (docs/product.md#registration): success sets the OTP expiry (expires_in, or 300 s). */
export async function register(input: RegisterInput): Promise<number> {
  const res = await authClient().register(input);
  const expiresIn = res.expiresIn || DEFAULT_OTP_SECONDS;
  rememberVerifyEmail(input.email);
  store().set({ registrationSuccess: true, otpExpiresIn: expiresIn, registrationVerified: false });
  return expiresIn;
}

/**
 * docs/product.md#registration: verifying gives registrationVerified; the user is fetched only when
 * the message says 'User verified'.
 */
export async function verifyRegistration(email: string, otp: string): Promise<AppUser | null> {
  const res = await authClient().verifyRegistration({ email, otp });
  store().set({ registrationVerified: true, verificationMessage: res.message });
  try {
    sessionStorage.removeItem(VERIFY_EMAIL_KEY);
  } catch {
    /* ignore */
  }
  if (res.message.includes("User verified") && res.accessToken) {
    setAccessToken(res.accessToken);
    store().set({ provider: "password" });
    const user = toAppUser(res.user) ?? (await fetchMe());
    if (user) store().signedIn(user, res.accessToken, "password");
    return user;
  }
  return null;
}

export async function resendRegistrationOtp(email: string): Promise<number> {
  const res = await authClient().resendRegistrationOtp({ email });
  const expiresIn = res.expiresIn || DEFAULT_OTP_SECONDS;
  store().set({ otpExpiresIn: expiresIn });
  return expiresIn;
}

export async function forgotPassword(email: string): Promise<number> {
  const res = await authClient().forgotPassword({ email });
  return res.expiresIn || DEFAULT_OTP_SECONDS;
}

export async function resetPassword(email: string, otp: string, newPassword: string): Promise<void> {
  try {
    await authClient().resetPassword({ email, otp, newPassword });
    store().set({ resetPasswordSuccess: true, resetPasswordError: null });
  } catch (e) {
    store().set({ resetPasswordSuccess: false, resetPasswordError: ConnectError.from(e).rawMessage });
    throw e;
  }
}

/** Logout (docs/product.md#logout): the server revokes the family; user, e-mail and OTP flag are cleared. */
export async function logout(): Promise<void> {
  try {
    await authClient().logout({});
  } catch (e) {
    // A session the server no longer knows is already logged out.
    if (ConnectError.from(e).code !== Code.Unauthenticated) throw e;
  }
  store().clearAuth();
}

export async function lineAuthorize(redirectTo: string): Promise<string> {
  const res = await authClient().lineAuthorize({ redirectTo });
  return res.authorizeUrl;
}

export type LineLink = { linkToken: string; email: string; lineName: string; linePictureUrl: string; redirectTo: string };

export type LineCallbackResult =
  | { kind: "signed-in"; user: AppUser | null; redirectTo: string; linked: boolean }
  | { kind: "link-required"; link: LineLink };

const callbacks = new Map<string, Promise<LineCallbackResult>>();

/** Exchanges LINE's code once, even if React runs the effect twice. */
export function lineCallback(params: { code: string; state: string; error: string; errorDescription: string }) {
  const key = `${params.code}|${params.state}|${params.error}`;
  let p = callbacks.get(key);
  if (!p) {
    p = (async (): Promise<LineCallbackResult> => {
      const res = await authClient().lineCallback(params);
      if (res.status === "link_required") {
        const link: LineLink = {
          linkToken: res.linkToken,
          email: res.email,
          lineName: res.lineName,
          linePictureUrl: res.linePictureUrl,
          redirectTo: res.redirectTo,
        };
        try {
          sessionStorage.setItem(LINE_LINK_KEY, JSON.stringify(link));
        } catch {
          /* ignore */
        }
        return { kind: "link-required", link };
      }
      if (res.accessToken) {
        store().signedIn(toAppUser(res.user), res.accessToken, "line");
      } else if (res.user) {
        // "linked": a signed-in user added LINE; the current session continues.
        store().set({ user: toAppUser(res.user) });
      }
      const user = res.user ? toAppUser(res.user) : await fetchMe();
      return { kind: "signed-in", user, redirectTo: res.redirectTo, linked: res.status === "linked" };
    })();
    callbacks.set(key, p);
  }
  return p;
}

export function recallLineLink(): LineLink | null {
  try {
    const raw = sessionStorage.getItem(LINE_LINK_KEY);
    return raw ? (JSON.parse(raw) as LineLink) : null;
  } catch {
    return null;
  }
}

export async function lineLinkSendOtp(linkToken: string, email: string): Promise<number> {
  const res = await authClient().lineLinkSendOtp({ linkToken, email });
  return res.expiresIn || DEFAULT_OTP_SECONDS;
}

export async function lineLinkVerify(linkToken: string, email: string, otp: string): Promise<AppUser | null> {
  const res = await authClient().lineLinkVerify({ linkToken, email, otp });
  store().signedIn(toAppUser(res.user), res.accessToken, "line");
  try {
    sessionStorage.removeItem(LINE_LINK_KEY);
  } catch {
    /* ignore */
  }
  return res.user ? toAppUser(res.user) : fetchMe();
}

/** Only our own paths are followed after sign-in (no open redirects). */
export function safeRedirect(path: string | null | undefined, fallback = "/"): string {
  if (!path || !path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return fallback;
  return path;
}
