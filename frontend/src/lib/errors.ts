import { Code, ConnectError } from "@connectrpc/connect";
import { isMessageKey, msg, serverDetails, type MessageKey } from "@/i18n/th";

/** Messages the transport raises itself (SPEC §5, §8), as ConnectError raw messages. */
export const AUTH_REQUIRED: MessageKey = "Authentication required";
export const SESSION_EXPIRED: MessageKey = "Your session has expired. Please login again.";
export const USER_NOT_FOUND: MessageKey = "User not found. Your session is invalid.";

export function asConnectError(err: unknown): ConnectError {
  return ConnectError.from(err);
}

/** fetch() rejected: no HTTP answer at all (offline, DNS, CORS, connection refused). */
export function isNetworkError(err: unknown): boolean {
  const e = asConnectError(err);
  if (e.cause instanceof TypeError) return true;
  return (
    (e.code === Code.Unknown || e.code === Code.Unavailable) &&
    /failed to fetch|networkerror|load failed|network request failed/i.test(e.rawMessage)
  );
}

/** 403 whose detail mentions 'inactive': the account needs activation (SPEC §6). */
export function isInactiveError(err: unknown): boolean {
  const e = asConnectError(err);
  return /inactive/i.test(e.rawMessage) && (e.code === Code.PermissionDenied || e.code === Code.Unauthenticated || e.code === Code.FailedPrecondition);
}

/** 429 for a new code requested within the minimum interval (DESIGN §4: 60 s). */
export function isResendTooSoon(err: unknown): boolean {
  const e = asConnectError(err);
  return e.code === Code.ResourceExhausted && /wait\b.*before requesting/i.test(e.rawMessage);
}

export function isUserNotFound(err: unknown): boolean {
  const e = asConnectError(err);
  return e.code === Code.NotFound && /user not found/i.test(e.rawMessage);
}

const THAI = /[\u0E00-\u0E7F]/;

/** A server detail in Thai: as is, a known English detail: translated, else null. */
export function translateDetail(detail: string): string | null {
  const d = detail.trim();
  if (!d) return null;
  if (isMessageKey(d)) return msg(d);
  if (THAI.test(d)) return d;
  for (const [re, thai] of serverDetails) {
    const m = re.exec(d);
    if (m) return typeof thai === "function" ? thai(m) : thai;
  }
  return null;
}

/**
 * The Thai message for a failed call (SPEC §8): network and availability
 * problems first, then the server's detail, then the operation's fallback.
 */
export function errorMessage(err: unknown, fallback: MessageKey, opts: { login?: boolean } = {}): string {
  const e = asConnectError(err);
  if (isNetworkError(e)) return msg("Unable to connect to the server. This may be a CORS issue or network problem.");
  if (e.code === Code.DeadlineExceeded || e.code === Code.Canceled) {
    return opts.login
      ? msg("No response from server. Please check your connection.")
      : msg("Service is currently unavailable. Please try again later.");
  }
  if (e.code === Code.Unavailable) return msg("Service is currently unavailable. Please try again later.");
  if (isUserNotFound(e)) return msg(USER_NOT_FOUND);
  if (opts.login && e.code === Code.PermissionDenied && !/inactive/i.test(e.rawMessage)) {
    return msg("Access denied. Please check your credentials.");
  }
  return translateDetail(e.rawMessage) ?? msg(fallback);
}
