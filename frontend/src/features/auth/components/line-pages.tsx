import { useEffect, useEffectEvent, useState } from "react";
import { Navigate, useLocation, useNavigate, useSearchParams } from "react-router";
import { Avatar } from "@/components/ui/avatar";
import { Button } from "@/components/ui/button";
import { InlineSpinner } from "@/components/ui/skeleton";
import { IconCheck, IconLine } from "@/components/ui/icons";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { th } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { lineCallback, lineLinkSendOtp, lineLinkVerify, recallLineLink, safeRedirect, type LineLink } from "../api/auth-api";
import { AuthCard } from "./auth-card";
import { EmailCodeForm } from "./email-code-form";
import { OtpPanel } from "./otp-panel";

/** /auth/line/callback: LINE sends the user back here with code and state. */
export function LineCallbackPage() {
  usePageTitle(th.titles.lineCallback);
  const [params] = useSearchParams();
  const navigate = useNavigate();

  useEffect(() => {
    const error = params.get("error") ?? "";
    if (error) {
      toast.info(th.auth.lineCancelled);
      void navigate("/login", { replace: true });
      return;
    }
    let cancelled = false;
    lineCallback({
      code: params.get("code") ?? "",
      state: params.get("state") ?? "",
      error,
      errorDescription: params.get("error_description") ?? "",
    }).then(
      (res) => {
        if (cancelled) return;
        if (res.kind === "link-required") void navigate("/auth/line/success/verify-otp", { replace: true });
        else void navigate("/auth/line/success", { replace: true, state: { redirectTo: res.redirectTo, linked: res.linked } });
      },
      (e) => {
        if (cancelled) return;
        toast.error(errorMessage(e, "Login failed.", { login: true }));
        void navigate("/login", { replace: true });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [params, navigate]);

  return (
    <AuthCard title={th.titles.lineCallback} icon={<IconLine size={30} />}>
      <InlineSpinner label={th.auth.lineCallbackLead} />
    </AuthCard>
  );
}

/** /auth/line/success: a short welcome, then on to where the user was going. */
export function LineSuccessPage() {
  usePageTitle(th.titles.lineSuccess);
  const user = useAuthStore((s) => s.user);
  const location = useLocation();
  const navigate = useNavigate();
  const state = location.state as { redirectTo?: string; linked?: boolean } | null;
  const target = safeRedirect(state?.redirectTo, "/");

  // Once, on arrival: the welcome toast and the timer on to the target. An
  // effect event reads user, state and target without making the effect
  // re-run, so no later render toasts again or restarts the timer.
  const arrive = useEffectEvent(() => {
    if (!user) return undefined;
    if (state?.linked) toast.success(th.auth.lineLinkedToast);
    return setTimeout(() => void navigate(target, { replace: true }), 1500);
  });
  useEffect(() => {
    const id = arrive();
    return () => clearTimeout(id);
  }, []);

  if (!user) return <Navigate to="/login" replace />;
  const name = user.name || user.username || user.email;
  return (
    <AuthCard title={th.auth.lineSuccessTitle} icon={<IconCheck size={30} />}>
      <div className="line-success" data-testid="line-success">
        <Avatar name={user.name} username={user.username} pictureUrl={user.pictureUrl} size={64} />
        <p className="auth-lead">{th.auth.lineSuccessLead(name)}</p>
        <Button block size="lg" onClick={() => void navigate(target, { replace: true })}>
          {th.auth.lineContinue}
        </Button>
      </div>
    </AuthCard>
  );
}

/** /auth/line/success/verify-otp: link a new LINE identity to an existing account by an e-mailed code. */
export function LineVerifyOtpPage() {
  usePageTitle(th.titles.lineVerify);
  const navigate = useNavigate();
  const [link] = useState<LineLink | null>(recallLineLink);
  const [email, setEmail] = useState(link?.email ?? "");
  const [step, setStep] = useState<"email" | "code">("email");
  const [expiresIn, setExpiresIn] = useState(300);

  useEffect(() => {
    if (!link) toast.error(th.auth.lineLinkExpired);
  }, [link]);
  if (!link) return <Navigate to="/login" replace />;

  const lineIdentity = (
    <div className="line-identity">
      <Avatar name={link.lineName} pictureUrl={link.linePictureUrl} size={40} />
      <span>{th.auth.lineAs(link.lineName || "LINE")}</span>
    </div>
  );

  if (step === "email") {
    return (
      <AuthCard title={th.auth.lineLinkTitle} icon={<IconLine size={30} />} lead={th.auth.lineLinkLead}>
        {lineIdentity}
        <EmailCodeForm
          testId="line-link-form"
          initialEmail={email}
          submitLabel={th.auth.lineLinkSend}
          onSend={async (v) => {
            setExpiresIn(await lineLinkSendOtp(link.linkToken, v));
            setEmail(v);
            setStep("code");
          }}
        />
      </AuthCard>
    );
  }

  return (
    <AuthCard title={th.auth.lineLinkTitle} icon={<IconLine size={30} />} lead={th.auth.lineLinkCodeLead(email.trim())}>
      {lineIdentity}
      <OtpPanel
        expiresIn={expiresIn}
        onVerify={async (code) => {
          try {
            await lineLinkVerify(link.linkToken, email.trim(), code);
          } catch (e) {
            throw new Error(errorMessage(e, "Verification failed. Please try again."));
          }
          void navigate("/auth/line/success", { replace: true, state: { redirectTo: link.redirectTo, linked: true } });
        }}
        onResend={async () => {
          try {
            return await lineLinkSendOtp(link.linkToken, email.trim());
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
