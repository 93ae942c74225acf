import { useRef, useState } from "react";
import { useNavigate, useParams } from "react-router";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { IconMail } from "@/components/ui/icons";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { th } from "@/i18n/th";
import { toast } from "@/stores/toast-store";
import { forgotPassword, resetPassword, safeRedirect } from "../api/auth-api";
import { AuthCard } from "./auth-card";
import { EmailCodeForm } from "./email-code-form";
import { OtpPanel } from "./otp-panel";

function decodePath(encoded?: string): string {
  if (!encoded) return "/login";
  try {
    return safeRedirect(decodeURIComponent(encoded), "/login");
  } catch {
    return "/login";
  }
}

/**
 * /forgot-password/{encodedPath}: e-mail → code + new password. The path
 * segment is the URI-encoded page to return to afterwards (default /login).
 */
export function ForgotPasswordPage() {
  usePageTitle(th.titles.forgotPassword);
  const navigate = useNavigate();
  const { encodedPath } = useParams();
  const returnTo = decodePath(encodedPath);
  const [step, setStep] = useState<"email" | "reset">("email");
  const [email, setEmail] = useState("");
  const [expiresIn, setExpiresIn] = useState(300);
  const [pw, setPw] = useState({ password: "", confirm: "" });
  const [pwErrors, setPwErrors] = useState<{ password?: string; confirm?: string }>({});
  const pwRef = useRef(pw);
  pwRef.current = pw;

  const validatePw = () => {
    const { password, confirm } = pwRef.current;
    const errs: typeof pwErrors = {};
    if ([...password].length < 8 || [...password].length > 128) errs.password = th.auth.validation.password;
    if (confirm !== password) errs.confirm = th.auth.validation.confirm;
    setPwErrors(errs);
    return Object.keys(errs).length === 0;
  };

  if (step === "email") {
    return (
      <AuthCard title={th.auth.forgotTitle} lead={th.auth.forgotLead} icon={<IconMail size={28} />}>
        <EmailCodeForm
          testId="forgot-form"
          submitLabel={th.auth.forgotSend}
          onSend={async (v) => {
            setExpiresIn(await forgotPassword(v));
            setEmail(v);
            toast.success(th.auth.forgotSent(v));
            setStep("reset");
          }}
        />
      </AuthCard>
    );
  }

  return (
    <AuthCard title={th.auth.resetTitle} lead={th.auth.forgotSent(email)}>
      <OtpPanel
        expiresIn={expiresIn}
        submitLabel={th.auth.resetButton}
        canSubmit={validatePw}
        before={
          <div className="form">
            <TextField
              label={th.auth.newPassword}
              type="password"
              name="newPassword"
              autoComplete="new-password"
              hint={th.auth.passwordHint}
              value={pw.password}
              onChange={(e) => setPw((s) => ({ ...s, password: e.target.value }))}
              error={pwErrors.password}
              // eslint-disable-next-line jsx-a11y/no-autofocus -- this step replaces the e-mail form the user just sent; focus follows into it instead of dropping to <body>
              autoFocus
            />
            <TextField
              label={th.auth.confirmPassword}
              type="password"
              name="confirmPassword"
              autoComplete="new-password"
              value={pw.confirm}
              onChange={(e) => setPw((s) => ({ ...s, confirm: e.target.value }))}
              error={pwErrors.confirm}
            />
          </div>
        }
        onVerify={async (code) => {
          try {
            await resetPassword(email.trim(), code, pwRef.current.password);
          } catch (e) {
            throw new Error(errorMessage(e, "Failed to reset password. Please try again."));
          }
          toast.success(th.auth.resetDone);
          void navigate(returnTo, { replace: true, state: { username: email.trim() } });
        }}
        onResend={async () => {
          try {
            return await forgotPassword(email.trim());
          } catch (e) {
            throw new Error(errorMessage(e, "Failed to resend OTP. Please try again."));
          }
        }}
        footer={
          <Button type="button" variant="ghost" onClick={() => setStep("email")}>
            {th.auth.changeEmail}
          </Button>
        }
      />
    </AuthCard>
  );
}
