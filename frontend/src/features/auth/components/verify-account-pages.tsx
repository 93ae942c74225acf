import { useState, type FormEvent } from "react";
import { Link, Navigate, useNavigate, useSearchParams } from "react-router";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { IconMail, IconUser } from "@/components/ui/icons";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { th } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { rememberVerifyEmail, resendRegistrationOtp } from "../api/auth-api";
import { useRedirectTarget } from "../hooks/use-redirect-target";
import { AuthCard } from "./auth-card";
import { LoginOtpStep } from "./login-otp-step";

/** /verify-account/otp: the two-step login code on its own page (e-mail from the auth state). */
export function VerifyAccountOtpPage() {
  usePageTitle(th.titles.verifyOtp);
  const email = useAuthStore((s) => s.email);
  const otpRequired = useAuthStore((s) => s.otpRequired);
  const setAuth = useAuthStore((s) => s.set);
  const navigate = useNavigate();
  const redirectTo = useRedirectTarget();
  if (!otpRequired || !email) return <Navigate to="/login" replace />;
  return (
    <AuthCard title={th.auth.twoStepTitle} icon={<IconMail size={28} />}>
      <LoginOtpStep
        email={email}
        redirectTo={redirectTo}
        onBack={() => {
          setAuth({ otpRequired: false });
          navigate("/login");
        }}
      />
    </AuthCard>
  );
}

/** /verify-account/register-otp: ask for a fresh activation code by e-mail, then verify it. */
export function VerifyAccountRegisterOtpPage() {
  usePageTitle(th.titles.verifyRegisterOtp);
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState(params.get("email") ?? "");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const v = email.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)) {
      setError(th.auth.validation.email);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      await resendRegistrationOtp(v);
      rememberVerifyEmail(v);
      toast.success(th.auth.otp.resent);
      navigate("/verify-registration", { state: { email: v } });
    } catch (err) {
      toast.error(errorMessage(err, "Failed to send OTP. Please try again."));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard title={params.get("inactive") === "true" ? th.auth.activateTitle : th.auth.accountOtpTitle} icon={<IconUser size={28} />} lead={th.auth.accountOtpLead}>
      <form className="form" onSubmit={onSubmit} noValidate>
        <TextField label={th.auth.email} type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={error} autoFocus />
        <Button type="submit" block size="lg" loading={busy}>
          {th.auth.accountOtpButton}
        </Button>
      </form>
      <p className="auth-switch">
        <Link to="/login">{th.auth.twoStepBack}</Link>
      </p>
    </AuthCard>
  );
}
