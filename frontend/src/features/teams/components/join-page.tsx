import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { Button } from "@/components/ui/button";
import { OtpInput, OTP_LENGTH, emptyOtp } from "@/components/ui/otp-input";
import { toast } from "@/stores/toast-store";
import { isNotFound, useAcceptInvitation } from "../api/teams-api";
import "../teams.css";

const t = th.teams;

function digitsOf(code: string | null): string[] {
  return code && /^\d{6}$/.test(code) ? code.split("") : emptyOtp();
}

/**
 * /teams/join?code=123456 (the invitation mail's link) or the code typed:
 * the signed-in user whose e-mail was invited joins the team.
 */
export function JoinTeamPage() {
  usePageTitle(t.joinTitle);
  const [params] = useSearchParams();
  const [digits, setDigits] = useState(() => digitsOf(params.get("code")));
  const [error, setError] = useState<string | null>(null);
  const accept = useAcceptInvitation();
  const navigate = useNavigate();
  const code = digits.join("");
  const complete = code.length === OTP_LENGTH && /^\d{6}$/.test(code);

  const join = (c: string) => {
    setError(null);
    accept.mutate(c, {
      onSuccess: (res) => {
        toast.success(t.joined(res.team?.name ?? ""));
        void navigate(res.team ? `/pipeline?team=${encodeURIComponent(res.team.id)}` : "/teams");
      },
      onError: (err) => {
        setError(isNotFound(err) ? t.joinNotFound : errorMessage(err, "Failed to join the team"));
        setDigits(emptyOtp());
      },
    });
  };

  return (
    <div className="teams-page team-join">
      <section className="card team-join-card" aria-labelledby="team-join-title" data-testid="team-join">
        <h1 id="team-join-title">{t.joinTitle}</h1>
        <p className="muted">{t.joinLead}</p>
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            if (complete) join(code);
          }}
        >
          <fieldset className="team-join-code">
            <legend className="field-label">{t.joinCode}</legend>
            <OtpInput value={digits} onChange={setDigits} disabled={accept.isPending} invalid={!!error} />
          </fieldset>
          {error && (
            <p className="form-error" role="alert" data-testid="team-join-error">
              {error}
            </p>
          )}
          <Button type="submit" block disabled={!complete} loading={accept.isPending} data-testid="team-join-submit">
            {t.join}
          </Button>
        </form>
        <p className="small">
          <Link to="/teams">{t.backToTeams}</Link>
        </p>
      </section>
    </div>
  );
}
