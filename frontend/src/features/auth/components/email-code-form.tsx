import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { errorMessage } from "@/lib/errors";
import { th } from "@/i18n/th";
import { toast } from "@/stores/toast-store";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The "e-mail me a code" step shared by forgot-password, LINE linking and
 * account activation: validates the address, calls onSend with it trimmed, and
 * toasts 'Failed to send OTP. Please try again.' (in Thai;
 * docs/product.md#sign-in-and-codes) on failure.
 */
export function EmailCodeForm({
  initialEmail = "",
  submitLabel,
  onSend,
  testId,
}: {
  initialEmail?: string;
  submitLabel: string;
  onSend: (email: string) => Promise<void>;
  testId?: string;
}) {
  const [email, setEmail] = useState(initialEmail);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v = email.trim();
    if (!EMAIL.test(v)) {
      setError(th.auth.validation.email);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      await onSend(v);
    } catch (err) {
      toast.error(errorMessage(err, "Failed to send OTP. Please try again."));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <form className="form" onSubmit={(e) => void submit(e)} noValidate data-testid={testId}>
        {/* eslint-disable-next-line jsx-a11y/no-autofocus -- a page with this one field to fill: focus starts in it */}
        <TextField label={th.auth.email} type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={error} autoFocus />
        <Button type="submit" block size="lg" loading={busy}>
          {submitLabel}
        </Button>
      </form>
      <p className="auth-switch">
        <Link to="/login">{th.auth.twoStepBack}</Link>
      </p>
    </>
  );
}
