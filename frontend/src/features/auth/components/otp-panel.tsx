import { useRef, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { OtpInput, emptyOtp, OTP_LENGTH } from "@/components/ui/otp-input";
import { useCountdown } from "@/hooks/use-countdown";
import { formatCountdown } from "@/lib/format";
import { msg, th } from "@/i18n/th";
import { DEFAULT_OTP_SECONDS } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";

type Props = {
  expiresIn: number;
  /** Verify the code; throw an Error whose message is the Thai text to show. */
  onVerify: (code: string) => Promise<void>;
  /** Ask for a new code; resolves with its lifetime in seconds. */
  onResend: () => Promise<number | void>;
  submitLabel?: string;
  /** Extra fields above the boxes (e.g. the new password on reset). */
  before?: ReactNode;
  footer?: ReactNode;
  /** Hold auto-submit until the caller's own fields are valid. */
  canSubmit?: () => boolean;
};

/**
 * The code step shared by every OTP screen (docs/product.md#verify-registration-screen
 * and docs/product.md#otp-countdown): running → expired disables boxes and submit and enables
 * Resend; Resend resets to the new lifetime (300 s by default).
 */
export function OtpPanel({ expiresIn, onVerify, onResend, submitLabel = th.auth.otp.verify, before, footer, canSubmit }: Props) {
  const [digits, setDigits] = useState<string[]>(emptyOtp);
  const [error, setError] = useState<string | null>(null);
  const [verifying, setVerifying] = useState(false);
  const [resending, setResending] = useState(false);
  const { secondsLeft, expired, reset } = useCountdown(expiresIn);
  const busy = useRef(false);

  const submit = async (code: string) => {
    if (busy.current) return;
    if (expired) {
      setError(msg("OTP has expired. Please request a new one."));
      return;
    }
    if (!new RegExp(`^\\d{${OTP_LENGTH}}$`).test(code)) {
      setError(msg("Please enter a valid 6-digit verification code"));
      return;
    }
    if (canSubmit && !canSubmit()) return;
    busy.current = true;
    setVerifying(true);
    setError(null);
    try {
      await onVerify(code);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setDigits(emptyOtp());
    } finally {
      busy.current = false;
      setVerifying(false);
    }
  };

  const resend = async () => {
    setResending(true);
    setError(null);
    try {
      const seconds = await onResend();
      reset(typeof seconds === "number" && seconds > 0 ? seconds : DEFAULT_OTP_SECONDS);
      setDigits(emptyOtp());
      toast.success(th.auth.otp.resent);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setResending(false);
    }
  };

  return (
    <form
      className="otp-panel"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit(digits.join(""));
      }}
    >
      {before}
      {/* eslint-disable-next-line jsx-a11y/no-autofocus -- the code boxes replace the form the user just sent; focus follows into them instead of dropping to <body> */}
      <OtpInput value={digits} onChange={setDigits} onComplete={(c) => void submit(c)} disabled={expired || verifying} invalid={!!error} autoFocus={!before} />
      <div className={`countdown${expired ? " expired" : ""}`} aria-live="polite" data-testid="otp-countdown">
        {expired ? (
          <span>{th.auth.otp.expired}</span>
        ) : (
          <>
            <span>{th.auth.otp.expiresIn}</span> <strong data-testid="otp-timer">{formatCountdown(secondsLeft)}</strong>
          </>
        )}
      </div>
      {expired && !error && (
        <p className="form-error" role="alert">
          {msg("OTP has expired. Please request a new one.")}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert" data-testid="otp-error">
          {error}
        </p>
      )}
      <Button type="submit" block size="lg" loading={verifying} disabled={expired}>
        {verifying ? th.auth.otp.verifying : submitLabel}
      </Button>
      <div className="otp-actions">
        <Button type="button" variant="ghost" onClick={() => void resend()} disabled={!expired || resending} loading={resending} data-testid="otp-resend">
          {resending ? th.auth.otp.resending : th.auth.otp.resend}
        </Button>
        {footer}
      </div>
      <p className="muted small">{th.auth.otp.checkSpam}</p>
    </form>
  );
}
