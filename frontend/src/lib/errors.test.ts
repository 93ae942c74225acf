import { describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { msg } from "@/i18n/th";
import { errorMessage, isInactiveError, isNetworkError, translateDetail } from "./errors";

describe("error catalogue (SPEC §8)", () => {
  it("network failure", () => {
    const e = new ConnectError("Failed to fetch", Code.Unknown, undefined, undefined, new TypeError("Failed to fetch"));
    expect(isNetworkError(e)).toBe(true);
    expect(errorMessage(e, "Login failed.")).toBe(msg("Unable to connect to the server. This may be a CORS issue or network problem."));
  });
  it("503 and no response", () => {
    expect(errorMessage(new ConnectError("x", Code.Unavailable), "Login failed.")).toBe(msg("Service is currently unavailable. Please try again later."));
    expect(errorMessage(new ConnectError("timeout", Code.DeadlineExceeded), "Registration failed.")).toBe(
      msg("Service is currently unavailable. Please try again later."),
    );
    expect(errorMessage(new ConnectError("timeout", Code.DeadlineExceeded), "Login failed.", { login: true })).toBe(
      msg("No response from server. Please check your connection."),
    );
  });
  it("login 403 and inactive accounts", () => {
    expect(errorMessage(new ConnectError("forbidden", Code.PermissionDenied), "Login failed.", { login: true })).toBe(
      msg("Access denied. Please check your credentials."),
    );
    expect(isInactiveError(new ConnectError("account is inactive", Code.PermissionDenied))).toBe(true);
    expect(isInactiveError(new ConnectError("forbidden", Code.PermissionDenied))).toBe(false);
  });
  it("user not found", () => {
    expect(errorMessage(new ConnectError("User not found", Code.NotFound), "Failed to fetch data")).toBe(msg("User not found. Your session is invalid."));
  });
  it("server details: Thai kept, known English translated, unknown falls back (Thai UI)", () => {
    expect(translateDetail("รหัสไม่ถูกต้อง")).toBe("รหัสไม่ถูกต้อง");
    expect(translateDetail("Your session has expired. Please login again.")).toBe(msg("Your session has expired. Please login again."));
    expect(errorMessage(new ConnectError("incorrect username or password", Code.Unauthenticated), "Login failed.", { login: true })).toMatch(/ไม่ถูกต้อง/);
    expect(errorMessage(new ConnectError("zzz", Code.Internal), "Registration failed.")).toBe(msg("Registration failed."));
    expect(translateDetail("Please wait 42 seconds before requesting a new code.")).toBe("เพิ่งส่งรหัสไปเมื่อสักครู่ กรุณารอ 42 วินาทีก่อนขอรหัสใหม่");
  });
  it("every catalogue message has Thai text", () => {
    for (const k of ["Login failed.", "Logged out successfully.", "Authentication required"] as const) expect(msg(k)).toMatch(/[\u0E00-\u0E7F]/);
  });
});
