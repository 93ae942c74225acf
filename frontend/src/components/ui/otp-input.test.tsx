import { useState } from "react";
import { describe, expect, it, vi, afterEach } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { OtpPanel } from "@/features/auth/components/otp-panel";
import { msg } from "@/i18n/th";
import { emptyOtp, OtpInput } from "./otp-input";

function Harness({ onComplete }: { onComplete: (c: string) => void }) {
  const [v, setV] = useState(emptyOtp());
  return <OtpInput value={v} onChange={setV} onComplete={onComplete} />;
}

const boxes = () => screen.getAllByRole<HTMLInputElement>("textbox");

describe("OtpInput", () => {
  it("six one-digit boxes that auto-advance and submit when full", () => {
    const done = vi.fn();
    render(<Harness onComplete={done} />);
    expect(boxes()).toHaveLength(6);
    "123456".split("").forEach((d, i) => {
      expect(document.activeElement).toBe(boxes()[i]);
      fireEvent.change(boxes()[i], { target: { value: d } });
    });
    expect(boxes().map((b) => b.value).join("")).toBe("123456");
    expect(done).toHaveBeenCalledWith("123456");
  });

  it("refuses anything but digits", () => {
    render(<Harness onComplete={() => {}} />);
    fireEvent.change(boxes()[0], { target: { value: "a" } });
    expect(boxes()[0].value).toBe("");
    expect(document.activeElement).toBe(boxes()[0]);
  });

  it("backspace on an empty box clears and moves to the previous one", () => {
    render(<Harness onComplete={() => {}} />);
    fireEvent.change(boxes()[0], { target: { value: "7" } });
    fireEvent.change(boxes()[1], { target: { value: "8" } });
    expect(document.activeElement).toBe(boxes()[2]);
    fireEvent.keyDown(boxes()[2], { key: "Backspace" });
    expect(document.activeElement).toBe(boxes()[1]);
    expect(boxes()[1].value).toBe("");
    fireEvent.keyDown(boxes()[1], { key: "Backspace" });
    expect(document.activeElement).toBe(boxes()[0]);
    expect(boxes()[0].value).toBe("");
  });

  it("pasting a 6-digit code fills every box and submits", () => {
    const done = vi.fn();
    render(<Harness onComplete={done} />);
    fireEvent.paste(boxes()[2], { clipboardData: { getData: () => " 654 321 " } });
    expect(boxes().map((b) => b.value).join("")).toBe("654321");
    expect(done).toHaveBeenCalledWith("654321");
  });
});

describe("OtpPanel countdown", () => {
  afterEach(() => vi.useRealTimers());

  it("shows mm:ss, keeps Resend disabled while running, then expires: boxes and submit disabled, Resend enabled, reset to 300 s", async () => {
    vi.useFakeTimers();
    const onResend = vi.fn(async () => 300);
    render(<OtpPanel expiresIn={65} onVerify={async () => {}} onResend={onResend} />);
    expect(screen.getByTestId("otp-timer").textContent).toBe("01:05");
    expect(screen.getByTestId<HTMLButtonElement>("otp-resend").disabled).toBe(true);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(6000);
    });
    expect(screen.getByTestId("otp-timer").textContent).toBe("00:59");
    await act(async () => {
      await vi.advanceTimersByTimeAsync(60_000);
    });
    expect(screen.queryByTestId("otp-timer")).toBeNull();
    expect(screen.getByRole("alert").textContent).toBe(msg("OTP has expired. Please request a new one."));
    expect(boxes().every((b) => b.disabled)).toBe(true);
    expect(screen.getByRole<HTMLButtonElement>("button", { name: /ยืนยันรหัส/ }).disabled).toBe(true);
    const resend = screen.getByTestId<HTMLButtonElement>("otp-resend");
    expect(resend.disabled).toBe(false);
    await act(async () => {
      fireEvent.click(resend);
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(onResend).toHaveBeenCalledOnce();
    expect(screen.getByTestId("otp-timer").textContent).toBe("05:00");
    expect(boxes().every((b) => !b.disabled)).toBe(true);
  });

  it("an incomplete code gives 'Please enter a valid 6-digit verification code'", async () => {
    const onVerify = vi.fn(async () => {});
    render(<OtpPanel expiresIn={300} onVerify={onVerify} onResend={async () => 300} />);
    fireEvent.change(boxes()[0], { target: { value: "1" } });
    await act(async () => {
      fireEvent.submit(boxes()[0].closest("form")!);
    });
    expect(screen.getByTestId("otp-error").textContent).toBe(msg("Please enter a valid 6-digit verification code"));
    expect(onVerify).not.toHaveBeenCalled();
  });

  it("a wrong code shows the error and clears the boxes", async () => {
    render(
      <OtpPanel
        expiresIn={300}
        onVerify={async () => {
          throw new Error("รหัสยืนยันไม่ถูกต้อง");
        }}
        onResend={async () => 300}
      />,
    );
    await act(async () => {
      fireEvent.paste(boxes()[0], { clipboardData: { getData: () => "000000" } });
    });
    expect(screen.getByTestId("otp-error").textContent).toBe("รหัสยืนยันไม่ถูกต้อง");
    expect(boxes().every((b) => b.value === "")).toBe(true);
  });
});
