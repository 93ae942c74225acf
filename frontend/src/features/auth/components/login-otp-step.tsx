import { useNavigate } from "react-router";
import { Button } from "@/components/ui/button";
import { errorMessage } from "@/lib/errors";
import { msg, th } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { resendLoginOtp, verifyLoginOtp } from "../api/auth-api";
import { OtpPanel } from "./otp-panel";

/** The second step of a two-step login (docs/product.md#login): the e-mailed code. */
export function LoginOtpStep({ email, redirectTo, onBack }: { email: string; redirectTo: string; onBack: () => void }) {
  const navigate = useNavigate();
  const expiresIn = useAuthStore((s) => s.otpExpiresIn);
  return (
    <>
      <p className="auth-lead" data-testid="two-step-lead">
        {th.auth.twoStepLead(email)}
      </p>
      <OtpPanel
        expiresIn={expiresIn}
        onVerify={async (code) => {
          try {
            await verifyLoginOtp(email, code);
          } catch (e) {
            throw new Error(errorMessage(e, "OTP verification failed."));
          }
          toast.success(msg("Login successful."));
          void navigate(redirectTo, { replace: true });
        }}
        onResend={async () => {
          try {
            return await resendLoginOtp(email);
          } catch (e) {
            throw new Error(errorMessage(e, "Failed to resend OTP. Please try again."));
          }
        }}
        footer={
          <Button type="button" variant="ghost" onClick={onBack}>
            {th.auth.twoStepBack}
          </Button>
        }
      />
    </>
  );
}
