import { describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { msg } from "@/i18n/th";
import { reasonMessage, reasons } from "@/i18n/reasons";
import {
  errorKind,
  errorMessage,
  errorReason,
  isInactiveError,
  isNetworkError,
  isResendTooSoon,
  isUserNotFound,
  serverMessage,
} from "./errors";

/** A server error as the transport hands it over: text, code, and the metadata the server sets. */
function serverError(message: string, code: Code, reason: string, extra: Record<string, string> = {}): ConnectError {
  return new ConnectError(message, code, new Headers({ "x-error-reason": reason, "x-error-kind": "k", ...extra }));
}

describe("error catalogue (docs/product.md#error-catalogue)", () => {
  it("network failure: fetch's own TypeError", () => {
    const e = new ConnectError("Failed to fetch", Code.Unknown, undefined, undefined, new TypeError("Failed to fetch"));
    expect(isNetworkError(e)).toBe(true);
    expect(errorMessage(e, "Login failed.")).toBe(msg("Unable to connect to the server. This may be a CORS issue or network problem."));
    expect(isNetworkError(new ConnectError("Failed to fetch", Code.Unknown))).toBe(false);
  });
  it("503 and no response", () => {
    expect(errorMessage(new ConnectError("x", Code.Unavailable), "Login failed.")).toBe(msg("Service is currently unavailable. Please try again later."));
    expect(errorMessage(new ConnectError("timeout", Code.DeadlineExceeded), "Registration failed.")).toBe(
      msg("Service is currently unavailable. Please try again later."),
    );
    expect(errorMessage(new ConnectError("timeout", Code.DeadlineExceeded), "Login failed.", { login: true })).toBe(
      msg("No response from server. Please check your connection."),
    );
    // A dependency's own outage says which one when the app knows it.
    expect(errorMessage(serverError("We could not send the e-mail.", Code.Unavailable, "mail-unavailable"), "Registration failed.")).toBe(
      reasons["mail-unavailable"],
    );
  });
  it("login 403 and inactive accounts go by reason, not by text", () => {
    expect(errorMessage(serverError("CSRF check failed", Code.PermissionDenied, "csrf"), "Login failed.", { login: true })).toBe(
      msg("Access denied. Please check your credentials."),
    );
    const inactive = serverError("Account is inactive. Please verify your email to activate your account.", Code.PermissionDenied, "account-inactive");
    expect(isInactiveError(inactive)).toBe(true);
    expect(errorMessage(inactive, "Login failed.", { login: true })).toBe(reasons["account-inactive"]);
    // The word alone means nothing: only the reason does.
    expect(isInactiveError(new ConnectError("account is inactive", Code.PermissionDenied))).toBe(false);
  });
  it("user not found: 404 with its reason", () => {
    const e = serverError("User not found", Code.NotFound, "user-not-found");
    expect(isUserNotFound(e)).toBe(true);
    expect(errorMessage(e, "Failed to fetch data")).toBe(msg("User not found. Your session is invalid."));
    expect(isUserNotFound(serverError("Project not found", Code.NotFound, "project-not-found"))).toBe(false);
  });
  it("reasons give Thai; unknown reasons and texts fall back to the operation's message", () => {
    expect(errorMessage(serverError("Incorrect username or password", Code.Unauthenticated, "bad-credentials"), "Login failed.", { login: true })).toBe(
      "ชื่อผู้ใช้หรือรหัสผ่านไม่ถูกต้อง",
    );
    expect(errorMessage(serverError("anything", Code.InvalidArgument, "no-such-reason"), "Registration failed.")).toBe(msg("Registration failed."));
    expect(errorMessage(new ConnectError("Incorrect username or password", Code.Unauthenticated), "Login failed.")).toBe(msg("Login failed."));
    expect(errorMessage(new ConnectError("zzz", Code.Internal), "Registration failed.")).toBe(msg("Registration failed."));
    expect(errorReason(new ConnectError("x", Code.Internal))).toBe("");
    expect(errorKind(serverError("x", Code.Internal, "internal"))).toBe("k");
  });
  it("a catalogue message the app raised itself is looked up exactly", () => {
    expect(serverMessage(new ConnectError("Your session has expired. Please login again.", Code.Unauthenticated))).toBe(
      msg("Your session has expired. Please login again."),
    );
    expect(serverMessage(new ConnectError("your session has expired", Code.Unauthenticated))).toBeNull();
  });
  it("waits come from retry-after, not from the English text", () => {
    const soon = serverError("Please wait 42 seconds before requesting a new code.", Code.ResourceExhausted, "otp-resend-too-soon", {
      "retry-after": "42",
    });
    expect(isResendTooSoon(soon)).toBe(true);
    expect(errorMessage(soon, "Failed to send OTP. Please try again.")).toBe("เพิ่งส่งรหัสไปเมื่อสักครู่ กรุณารอ 42 วินาทีก่อนขอรหัสใหม่");
    expect(errorMessage(serverError("Please wait 42 seconds", Code.ResourceExhausted, "otp-resend-too-soon"), "Failed to send OTP. Please try again.")).toBe(
      "เพิ่งส่งรหัสไปเมื่อสักครู่ กรุณารอสักครู่ก่อนขอรหัสใหม่",
    );
    const throttled = serverError("Too many failed login attempts. Please try again in 30 seconds.", Code.ResourceExhausted, "login-throttled", {
      "retry-after": "30",
    });
    expect(errorMessage(throttled, "Login failed.", { login: true })).toBe("ใส่รหัสผ่านผิดหลายครั้ง กรุณาลองใหม่ในอีก 30 วินาที");
    expect(reasonMessage("otp-resend-limit", { retryAfter: 1700 })).toBe("ขอรหัสบ่อยเกินไป กรุณาลองใหม่ในอีก 29 นาที");
  });
  it("every reason and catalogue message is Thai", () => {
    for (const k of ["Login failed.", "Logged out successfully.", "Authentication required"] as const) expect(msg(k)).toMatch(/[\u0E00-\u0E7F]/);
    for (const r of Object.keys(reasons)) expect(reasonMessage(r, { retryAfter: 5 }), r).toMatch(/[\u0E00-\u0E7F]/);
  });
});
