import { useEffect, useState } from "react";
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from "react-router";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { IconMail, IconUser } from "@/components/ui/icons";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage, isInactiveError, isResendTooSoon } from "@/lib/errors";
import { msg, th } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { recallVerifyEmail, rememberVerifyEmail, resendRegistrationOtp, verifyRegistration } from "../api/auth-api";
import { AuthCard } from "./auth-card";
import { OtpPanel } from "./otp-panel";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * docs/product.md#verify-registration-screen: six boxes, countdown, Resend, Back to
 * Registration; the inactive variant asks to activate the account first.
 */
export function VerifyRegistrationPage() {
  usePageTitle(th.titles.verifyRegistration);
  const location = useLocation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const from = location.state as { email?: string; username?: string } | null;
  const [inactive, setInactive] = useState(params.get("inactive") === "true");
  // A login by username: the e-mail is not known here yet, and an address
  // remembered from some earlier sign-up may not be this account's.
  const byUsername = inactive && !from?.email && !!from?.username;
  const [email, setEmail] = useState(() => (byUsername ? "" : recallVerifyEmail(from?.email)));
  const [typedEmail, setTypedEmail] = useState("");
  const [emailError, setEmailError] = useState<string | null>(null);
  const [activating, setActivating] = useState(false);
  const [round, setRound] = useState(0);
  const expiresIn = useAuthStore((s) => s.otpExpiresIn);

  useEffect(() => {
    if (email) rememberVerifyEmail(email);
    else if (!byUsername) toast.error(msg("Email not found. Please return to signup."));
  }, [email, byUsername]);

  if (!email && !(inactive && byUsername)) return <Navigate to="/signup" replace />;

  if (inactive) {
    const activate = async () => {
      const to = email || typedEmail.trim();
      if (!EMAIL.test(to)) {
        setEmailError(th.auth.validation.email);
        return;
      }
      setEmailError(null);
      setActivating(true);
      try {
        await resendRegistrationOtp(to);
        setEmail(to);
        toast.success(th.auth.otp.resent);
        setInactive(false);
        setRound((r) => r + 1);
      } catch (e) {
        if (isResendTooSoon(e)) {
          // A code went out moments ago (e.g. at registration): use that one.
          toast.info(errorMessage(e, "Failed to send OTP. Please try again."));
          setEmail(to);
          setInactive(false);
          setRound((r) => r + 1);
        } else {
          toast.error(errorMessage(e, "Failed to send OTP. Please try again."));
        }
      } finally {
        setActivating(false);
      }
    };
    return (
      <AuthCard
        title={th.auth.activateTitle}
        icon={<IconUser size={28} />}
        lead={email ? th.auth.activateLead(email) : th.activateByUsername.lead(from?.username ?? "")}
      >
        <form
          className="form"
          noValidate
          data-testid="activate-form"
          onSubmit={(e) => {
            e.preventDefault();
            void activate();
          }}
        >
          {!email && (
            <TextField
              label={th.auth.email}
              type="email"
              name="email"
              autoComplete="email"
              value={typedEmail}
              onChange={(e) => setTypedEmail(e.target.value)}
              error={emailError}
            />
          )}
          <Button type="submit" block size="lg" loading={activating} data-testid="activate-account">
            {activating ? th.auth.activating : th.auth.activateButton}
          </Button>
        </form>
        <p className="auth-switch">
          <Link to="/signup">{th.auth.backToRegistration}</Link>
        </p>
      </AuthCard>
    );
  }

  return (
    <AuthCard title={th.auth.verifyTitle} icon={<IconMail size={28} />} lead={th.auth.verifyLead(email)}>
      <OtpPanel
        key={round}
        expiresIn={expiresIn}
        onVerify={async (code) => {
          let user;
          try {
            user = await verifyRegistration(email, code);
          } catch (e) {
            if (isInactiveError(e)) {
              setInactive(true);
              return;
            }
            throw new Error(errorMessage(e, "Registration OTP verification failed."));
          }
          // docs/product.md#verify-registration-screen: / when a user is present, otherwise /login.
          if (user) {
            toast.success(th.auth.verifiedToast);
            void navigate("/", { replace: true });
          } else {
            toast.success(th.auth.verifiedLoginToast);
            void navigate("/login", { replace: true, state: { username: email } });
          }
        }}
        onResend={async () => {
          try {
            return await resendRegistrationOtp(email);
          } catch (e) {
            throw new Error(errorMessage(e, "Failed to resend OTP. Please try again."));
          }
        }}
        footer={
          <Link to="/signup" className="btn btn-ghost btn-md" data-testid="back-to-registration">
            {th.auth.backToRegistration}
          </Link>
        }
      />
    </AuthCard>
  );
}
