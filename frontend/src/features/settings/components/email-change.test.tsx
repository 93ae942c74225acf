import { describe, expect, it } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { createFakeBackend, testUser } from "@/testing/fake-backend";
import { getAccessToken, setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";

describe("changing the e-mail", () => {
  it("takes the new session the change hands back (every earlier one has ended)", async () => {
    useAuthStore.setState({ user: testUser });
    setAccessToken("before-the-change");
    const moved = { ...testUser, email: "moved@example.com" };
    createFakeBackend({
      "AuthService/GetMe": () => ({ json: { user: testUser } }),
      "AuthService/GetSecuritySettings": () => ({ json: { twoStepVerification: "disabled", hasPassword: true } }),
      "AuthService/RequestEmailChange": () => ({ json: { message: "sent", email: "moved@example.com", expiresIn: 300 } }),
      "AuthService/ConfirmEmailChange": () => ({
        json: { message: "Email changed", user: moved, accessToken: "after-the-change", refreshToken: "r", tokenType: "bearer", expiresIn: 900 },
      }),
    }).install();
    renderApp("/user-settings/user-info");
    const form = await screen.findByTestId("email-form");
    fireEvent.change(within(form).getByTestId("email-new"), { target: { value: "moved@example.com" } });
    const password = within(form).queryByTestId("email-password");
    if (password) fireEvent.change(password, { target: { value: "long enough pass" } });
    await act(async () => {
      fireEvent.click(within(form).getByTestId("email-send"));
    });
    const code = await within(form).findByTestId("email-code");
    await act(async () => {
      fireEvent.paste(within(code).getAllByRole("textbox")[0], { clipboardData: { getData: () => "123456" } });
    });
    await waitFor(() => expect(useAuthStore.getState().user?.email).toBe("moved@example.com"));
    expect(getAccessToken()).toBe("after-the-change");
  });
});
