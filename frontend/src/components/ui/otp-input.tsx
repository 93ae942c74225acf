import { useEffect, useEffectEvent, useRef, type ClipboardEvent, type KeyboardEvent } from "react";
import { th } from "@/i18n/th";

export const OTP_LENGTH = 6;

export const emptyOtp = (): string[] => Array.from({ length: OTP_LENGTH }, () => "");

type Props = {
  value: string[];
  onChange: (digits: string[]) => void;
  /** Called once the sixth digit is in (typing, autofill or paste). */
  onComplete?: (code: string) => void;
  disabled?: boolean;
  invalid?: boolean;
  autoFocus?: boolean;
};

/**
 * Six one-digit boxes (docs/product.md#verify-registration-screen):
 * auto-advance, backspace moves back, a pasted 6-digit code fills every box,
 * completion triggers onComplete.
 */
export function OtpInput({ value, onChange, onComplete, disabled, invalid, autoFocus = true }: Props) {
  const refs = useRef<Array<HTMLInputElement | null>>([]);

  // Focus the first empty box on mount and when the boxes are re-enabled,
  // not on every keystroke (typing moves the focus itself): value and
  // autoFocus are read, not reacted to.
  const focusFirstEmpty = useEffectEvent(() => {
    if (!autoFocus) return;
    const i = value.findIndex((d) => d === "");
    refs.current[i === -1 ? 0 : i]?.focus();
  });
  useEffect(() => {
    if (!disabled) focusFirstEmpty();
  }, [disabled]);

  const focus = (i: number) => {
    const el = refs.current[Math.max(0, Math.min(OTP_LENGTH - 1, i))];
    el?.focus();
    el?.select();
  };

  const commit = (next: string[], focusIndex: number) => {
    onChange(next);
    if (focusIndex >= 0) focus(focusIndex);
    if (next.every((d) => /^\d$/.test(d))) onComplete?.(next.join(""));
  };

  const fillFrom = (start: number, digits: string) => {
    const next = [...value];
    let i = start;
    for (const ch of digits) {
      if (i >= OTP_LENGTH) break;
      next[i++] = ch;
    }
    commit(next, Math.min(i, OTP_LENGTH - 1));
  };

  const handleChange = (i: number, raw: string) => {
    const digits = raw.replace(/\D/g, "");
    if (digits.length === 0) {
      if (raw === "") {
        const next = [...value];
        next[i] = "";
        onChange(next);
      }
      return; // letters and symbols are refused
    }
    if (digits.length === OTP_LENGTH) {
      fillFrom(0, digits); // autofill of the whole code into one box
      return;
    }
    if (digits.length > 1) {
      // typing over a filled box: keep the newest digit
      const prev = value[i];
      const newest = prev && digits.startsWith(prev) ? digits.slice(prev.length) : digits;
      fillFrom(i, newest.length === 1 ? newest : newest.slice(0, OTP_LENGTH - i));
      return;
    }
    const next = [...value];
    next[i] = digits;
    commit(next, i < OTP_LENGTH - 1 ? i + 1 : -1);
  };

  const handleKeyDown = (i: number, e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Backspace") {
      e.preventDefault();
      const next = [...value];
      if (next[i]) {
        next[i] = "";
        onChange(next);
      } else if (i > 0) {
        next[i - 1] = "";
        onChange(next);
        focus(i - 1);
      }
    } else if (e.key === "ArrowLeft") {
      e.preventDefault();
      focus(i - 1);
    } else if (e.key === "ArrowRight") {
      e.preventDefault();
      focus(i + 1);
    }
  };

  const handlePaste = (i: number, e: ClipboardEvent<HTMLInputElement>) => {
    const digits = e.clipboardData.getData("text").replace(/\D/g, "");
    e.preventDefault();
    if (digits.length === 0) return;
    fillFrom(digits.length >= OTP_LENGTH ? 0 : i, digits.slice(0, OTP_LENGTH));
  };

  return (
    <div className={`otp${invalid ? " otp-invalid" : ""}`} role="group" aria-label={th.auth.otp.group}>
      {value.map((d, i) => (
        <input
          key={i}
          ref={(el) => {
            refs.current[i] = el;
          }}
          className="otp-box"
          type="text"
          inputMode="numeric"
          pattern="[0-9]*"
          autoComplete={i === 0 ? "one-time-code" : "off"}
          maxLength={i === 0 ? OTP_LENGTH : 1}
          aria-label={th.auth.otp.digit(i + 1)}
          value={d}
          disabled={disabled}
          onChange={(e) => handleChange(i, e.target.value)}
          onKeyDown={(e) => handleKeyDown(i, e)}
          onPaste={(e) => handlePaste(i, e)}
          onFocus={(e) => e.target.select()}
          data-testid={`otp-${i}`}
        />
      ))}
    </div>
  );
}
