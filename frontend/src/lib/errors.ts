import { Code, ConnectError } from "@connectrpc/connect";
import { isMessageKey, msg, type MessageKey } from "@/i18n/th";
import { reasonMessage } from "@/i18n/reasons";

/** Messages the transport raises itself (docs/product.md#error-catalogue), as ConnectError raw messages. */
export const AUTH_REQUIRED: MessageKey = "Authentication required";
export const SESSION_EXPIRED: MessageKey = "Your session has expired. Please login again.";
export const USER_NOT_FOUND: MessageKey = "User not found. Your session is invalid.";

/**
 * Metadata every server error carries (pkg/apperr, the gateway): the stable
 * reason the app chooses its message by, the error's kind (an apperr kind
 * name such as not_found), and for rate limits the seconds to wait.
 */
export const REASON_KEY = "x-error-reason";
export const KIND_KEY = "x-error-kind";
export const RETRY_AFTER_KEY = "retry-after";

export function asConnectError(err: unknown): ConnectError {
  return ConnectError.from(err);
}

/** The server's reason for err (e.g. "account-inactive"), or "" when it sent none. */
export function errorReason(err: unknown): string {
  return asConnectError(err).metadata.get(REASON_KEY) ?? "";
}

/** The server's kind for err (e.g. "permission_denied"), or "" when it sent none. */
export function errorKind(err: unknown): string {
  return asConnectError(err).metadata.get(KIND_KEY) ?? "";
}

/** Seconds the server asks to wait (retry-after), or undefined. */
export function retryAfter(err: unknown): number | undefined {
  const n = Number(asConnectError(err).metadata.get(RETRY_AFTER_KEY));
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** fetch() rejected: no HTTP answer at all (offline, DNS, CORS, connection refused). */
export function isNetworkError(err: unknown): boolean {
  return asConnectError(err).cause instanceof TypeError;
}

/** The account needs activation (docs/product.md#inactive-accounts: leads to the activation flow, not a toast). */
export function isInactiveError(err: unknown): boolean {
  return errorReason(err) === "account-inactive";
}

/** A new code was asked for within the minimum interval (60 s, docs/architecture.md#one-time-codes). */
export function isResendTooSoon(err: unknown): boolean {
  return errorReason(err) === "otp-resend-too-soon";
}

/** The signed-in user no longer exists (docs/product.md#session-and-connection). */
export function isUserNotFound(err: unknown): boolean {
  const e = asConnectError(err);
  return e.code === Code.NotFound && errorReason(e) === "user-not-found";
}

/**
 * A search-save refused by the plan's limits ('Limit reached',
 * docs/product.md#search-saves-and-status-indicators): the day's or month's
 * searches, or the saved searches the plan holds.
 */
export function isLimitReached(err: unknown): boolean {
  const r = errorReason(err);
  return r === "limit-reached" || r === "saved-search-limit";
}

/**
 * The Thai text of a server error: by its reason; else, for an error the app
 * raised itself with a message of the catalogue
 * (docs/product.md#error-catalogue) as its text, that message's Thai; else
 * null.
 */
export function serverMessage(err: unknown): string | null {
  const e = asConnectError(err);
  const reason = errorReason(e);
  if (reason) {
    const thai = reasonMessage(reason, { retryAfter: retryAfter(e) });
    if (thai) return thai;
  }
  const raw = e.rawMessage.trim();
  return isMessageKey(raw) ? msg(raw) : null;
}

/**
 * The Thai message for a failed call (docs/product.md#error-catalogue): network and availability
 * problems first, then the server's reason, then the operation's fallback.
 */
export function errorMessage(err: unknown, fallback: MessageKey, opts: { login?: boolean } = {}): string {
  const e = asConnectError(err);
  if (isNetworkError(e)) return msg("Unable to connect to the server. This may be a CORS issue or network problem.");
  if (e.code === Code.DeadlineExceeded || e.code === Code.Canceled) {
    return opts.login
      ? msg("No response from server. Please check your connection.")
      : msg("Service is currently unavailable. Please try again later.");
  }
  if (isUserNotFound(e)) return msg(USER_NOT_FOUND);
  if (opts.login && e.code === Code.PermissionDenied && !isInactiveError(e)) {
    return msg("Access denied. Please check your credentials.");
  }
  const known = serverMessage(e);
  if (known) return known;
  if (e.code === Code.Unavailable) return msg("Service is currently unavailable. Please try again later.");
  return msg(fallback);
}
