import { Navigate, useNavigate, useSearchParams } from "react-router";
import { IconMail, IconUser } from "@/components/ui/icons";
import { usePageTitle } from "@/hooks/use-page-title";
import { th } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { rememberVerifyEmail, resendRegistrationOtp } from "../api/auth-api";
import { useRedirectTarget } from "../hooks/use-redirect-target";
import { AuthCard } from "./auth-card";
import { EmailCodeForm } from "./email-code-form";
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
          void navigate("/login");
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

  return (
    <AuthCard title={params.get("inactive") === "true" ? th.auth.activateTitle : th.auth.accountOtpTitle} icon={<IconUser size={28} />} lead={th.auth.accountOtpLead}>
      <EmailCodeForm
        initialEmail={params.get("email") ?? ""}
        submitLabel={th.auth.accountOtpButton}
        onSend={async (v) => {
          await resendRegistrationOtp(v);
          rememberVerifyEmail(v);
          toast.success(th.auth.otp.resent);
          void navigate("/verify-registration", { state: { email: v } });
        }}
      />
    </AuthCard>
  );
}
