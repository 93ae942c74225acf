import { useState, type FormEvent } from "react";
import { Link, Navigate, useLocation, useNavigate } from "react-router";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { IconMail } from "@/components/ui/icons";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage, isInactiveError } from "@/lib/errors";
import { msg, th } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { login, rememberVerifyEmail } from "../api/auth-api";
import { useRedirectTarget } from "../hooks/use-redirect-target";
import { AuthCard } from "./auth-card";
import { LineLoginOption } from "./line-button";
import { LoginOtpStep } from "./login-otp-step";

export function LoginPage() {
  usePageTitle(th.titles.login);
  const navigate = useNavigate();
  const location = useLocation();
  const redirectTo = useRedirectTarget();
  const user = useAuthStore((s) => s.user);
  const otpRequired = useAuthStore((s) => s.otpRequired);
  const storedEmail = useAuthStore((s) => s.email);
  const setAuth = useAuthStore((s) => s.set);

  const prefill = (location.state as { username?: string } | null)?.username ?? "";
  const [username, setUsername] = useState(prefill);
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<{ username?: string; password?: string }>({});
  const [submitting, setSubmitting] = useState(false);
  const [done, setDone] = useState(false);

  const step = otpRequired && storedEmail ? "otp" : "credentials";

  if (user && step === "credentials" && !submitting && !done) return <Navigate to={redirectTo} replace />;

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const next: typeof errors = {};
    if (!username.trim()) next.username = th.auth.validation.required;
    if (!password) next.password = th.auth.validation.required;
    setErrors(next);
    if (Object.keys(next).length) return;
    setSubmitting(true);
    try {
      const res = await login(username.trim(), password);
      if (res.kind === "done") {
        setDone(true);
        toast.success(msg("Login successful."));
        void navigate(redirectTo, { replace: true });
      }
    } catch (err) {
      if (isInactiveError(err)) {
        // docs/product.md#sign-in-and-codes: not toasted; leads to the
        // activation screen, the same one whether they typed their e-mail or
        // their username (then the screen asks for the e-mail the code goes
        // to).
        const typed = username.trim();
        if (typed.includes("@")) {
          rememberVerifyEmail(typed);
          void navigate("/verify-registration?inactive=true", { state: { email: typed } });
        } else {
          void navigate("/verify-registration?inactive=true", { state: { username: typed } });
        }
        return;
      }
      toast.error(errorMessage(err, "Login failed.", { login: true }));
    } finally {
      setSubmitting(false);
    }
  };

  if (step === "otp") {
    return (
      <AuthCard title={th.auth.twoStepTitle} icon={<IconMail size={28} />}>
        <LoginOtpStep email={storedEmail} redirectTo={redirectTo} onBack={() => setAuth({ otpRequired: false })} />
      </AuthCard>
    );
  }

  return (
    <AuthCard title={th.auth.loginTitle} lead={th.auth.loginLead}>
      <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate data-testid="login-form">
        <TextField
          label={th.auth.usernameOrEmail}
          name="username"
          autoComplete="username"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          error={errors.username}
          // eslint-disable-next-line jsx-a11y/no-autofocus -- the sign-in page is this form alone: focus starts in its first field
          autoFocus
        />
        <TextField
          label={th.auth.password}
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.password}
        />
        <div className="form-row-end">
          <Link to={`/forgot-password/${encodeURIComponent("/login")}`} className="link">
            {th.auth.forgotLink}
          </Link>
        </div>
        <Button type="submit" block size="lg" loading={submitting}>
          {submitting ? th.auth.loggingIn : th.auth.loginButton}
        </Button>
      </form>
      <LineLoginOption redirectTo={redirectTo} />
      <p className="auth-switch">
        {th.auth.noAccount} <Link to="/signup">{th.auth.signupLink}</Link>
      </p>
    </AuthCard>
  );
}
