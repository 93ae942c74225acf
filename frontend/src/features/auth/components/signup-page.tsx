import { useState, type FormEvent } from "react";
import { Link, Navigate, useNavigate } from "react-router";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { th } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import { register } from "../api/auth-api";
import { AuthCard } from "./auth-card";
import { LineLoginOption } from "./line-button";

type Fields = { name: string; username: string; email: string; password: string; confirm: string };
type Errors = Partial<Record<keyof Fields, string>>;

/** docs/product.md#account-fields: username 3–32 of letters, digits, . _ -; password 8–128 characters. */
export function validateSignup(f: Fields): Errors {
  const e: Errors = {};
  const v = th.auth.validation;
  if (!f.username.trim()) e.username = v.required;
  else if (!/^[A-Za-z0-9._-]{3,32}$/.test(f.username.trim())) e.username = v.username;
  if (!f.email.trim()) e.email = v.required;
  else if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(f.email.trim())) e.email = v.email;
  if (!f.password) e.password = v.required;
  else if ([...f.password].length < 8 || [...f.password].length > 128) e.password = v.password;
  if (f.confirm !== f.password) e.confirm = v.confirm;
  return e;
}

export function SignupPage() {
  usePageTitle(th.titles.signup);
  const navigate = useNavigate();
  const user = useAuthStore((s) => s.user);
  const [f, setF] = useState<Fields>({ name: "", username: "", email: "", password: "", confirm: "" });
  const [errors, setErrors] = useState<Errors>({});
  const [submitting, setSubmitting] = useState(false);

  if (user) return <Navigate to="/" replace />;

  const bind = (k: keyof Fields) => ({
    value: f[k],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => setF((s) => ({ ...s, [k]: e.target.value })),
    error: errors[k],
    name: k,
  });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const errs = validateSignup(f);
    setErrors(errs);
    if (Object.keys(errs).length) return;
    setSubmitting(true);
    const email = f.email.trim();
    try {
      await register({ username: f.username.trim(), email, password: f.password, name: f.name.trim() });
      toast.success(th.auth.signupSent);
      void navigate("/verify-registration", { state: { email } });
    } catch (err) {
      toast.error(errorMessage(err, "Registration failed."));
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <AuthCard title={th.auth.signupTitle} lead={th.auth.signupLead}>
      <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate data-testid="signup-form">
        <TextField label={th.auth.name} autoComplete="name" optional {...bind("name")} />
        <TextField label={th.auth.username} autoComplete="username" hint={th.auth.usernameHint} {...bind("username")} />
        <TextField label={th.auth.email} type="email" autoComplete="email" inputMode="email" {...bind("email")} />
        <div className="form-grid-2">
          <TextField label={th.auth.password} type="password" autoComplete="new-password" hint={th.auth.passwordHint} {...bind("password")} />
          <TextField label={th.auth.confirmPassword} type="password" autoComplete="new-password" {...bind("confirm")} />
        </div>
        <Button type="submit" block size="lg" loading={submitting}>
          {submitting ? th.auth.signingUp : th.auth.signupButton}
        </Button>
        <p className="muted small center" data-testid="signup-consent">
          {th.legal.signupConsent.before}
          <Link to="/terms">{th.legal.signupConsent.terms}</Link>
          {th.legal.signupConsent.and}
          <Link to="/privacy">{th.legal.signupConsent.privacy}</Link>
        </p>
      </form>
      <LineLoginOption redirectTo="/" />
      <p className="auth-switch">
        {th.auth.haveAccount} <Link to="/login">{th.auth.loginLink}</Link>
      </p>
    </AuthCard>
  );
}
