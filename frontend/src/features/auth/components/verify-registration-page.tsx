import { useEffect, useState } from "react";
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from "react-router";
import { Button } from "@/components/ui/button";
import { IconMail, IconUser } from "@/components/ui/icons";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage, isInactiveError, isResendTooSoon } from "@/lib/errors";
import { msg, th } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { recallVerifyEmail, rememberVerifyEmail, resendRegistrationOtp, verifyRegistration } from "../api/auth-api";
import { AuthCard } from "./auth-card";
import { OtpPanel } from "./otp-panel";

/**
 * SPEC §2 verify-registration: six boxes, countdown, Resend, Back to
 * Registration; the inactive variant asks to activate the account first.
 */
export function VerifyRegistrationPage() {
  usePageTitle(th.titles.verifyRegistration);
  const location = useLocation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email] = useState(() => recallVerifyEmail((location.state as { email?: string } | null)?.email));
  const [inactive, setInactive] = useState(params.get("inactive") === "true");
  const [activating, setActivating] = useState(false);
  const [round, setRound] = useState(0);
  const expiresIn = useAuthStore((s) => s.otpExpiresIn);

  useEffect(() => {
    if (email) rememberVerifyEmail(email);
    else toast.error(msg("Email not found. Please return to signup."));
  }, [email]);

  if (!email) return <Navigate to="/signup" replace />;

  if (inactive) {
    const activate = async () => {
      setActivating(true);
      try {
        await resendRegistrationOtp(email);
        toast.success(th.auth.otp.resent);
        setInactive(false);
        setRound((r) => r + 1);
      } catch (e) {
        if (isResendTooSoon(e)) {
          // A code went out moments ago (e.g. at registration): use that one.
          toast.info(errorMessage(e, "Failed to send OTP. Please try again."));
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
      <AuthCard title={th.auth.activateTitle} icon={<IconUser size={28} />} lead={th.auth.activateLead(email)}>
        <Button
          block
          size="lg"
          loading={activating}
          data-testid="activate-account"
          onClick={() => void activate()}
        >
          {activating ? th.auth.activating : th.auth.activateButton}
        </Button>
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
          // SPEC §2: / when a user is present, otherwise /login.
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
