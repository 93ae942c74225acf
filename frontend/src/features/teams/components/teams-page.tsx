import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { useMySubscription } from "@/features/payment";
import { toast } from "@/stores/toast-store";
import { useCreateTeam, useMyTeams } from "../api/teams-api";
import { roleLabel } from "../lib/roles";
import { isUpgradeRequired } from "../lib/refusals";
import { UpgradePrompt } from "./upgrade-prompt";
import "../teams.css";

const t = th.teams;

/** /teams: the user's teams, a new team (pro and enterprise), and the way to join one by code. */
export function TeamsPage() {
  usePageTitle(t.teamsTitle);
  const list = useMyTeams();
  const seats = useMySubscription().data?.combinationLimits?.teamSeats;
  return (
    <div className="teams-page" data-testid="teams-page">
      <header className="teams-head">
        <div>
          <h1>{t.teamsTitle}</h1>
          <p className="muted">{t.teamsLead}</p>
        </div>
        <Link to="/teams/join" className="btn btn-secondary btn-md" data-testid="teams-join-link">
          {t.joinTitle}
        </Link>
      </header>

      <section aria-labelledby="my-teams-title" className="teams-list-section">
        <h2 id="my-teams-title">{t.myTeams}</h2>
        {list.isPending ? (
          <p aria-busy="true">{th.common.loading}</p>
        ) : list.isError ? (
          <p role="alert" className="form-error">
            {errorMessage(list.error, "Failed to fetch data")}
          </p>
        ) : list.data.length === 0 ? (
          <p className="muted" data-testid="teams-empty">
            {t.noTeams}
          </p>
        ) : (
          <ul className="team-cards">
            {list.data.map((team) => (
              <li key={team.id} className="card team-card" data-testid="team-card" data-team-id={team.id}>
                <div className="team-card-main">
                  <h3>{team.name}</h3>
                  <p className="small muted">
                    {t.myRole(roleLabel(team.role))} · {t.seats(team.seatsUsed, team.seats)}
                  </p>
                  {team.readOnly && <p className="small notice">{t.teamReadOnly}</p>}
                </div>
                <div className="team-card-actions">
                  <Link to={`/pipeline?team=${encodeURIComponent(team.id)}`} className="btn btn-primary btn-sm" data-testid="team-open-pipeline">
                    {t.openPipeline}
                  </Link>
                  <Link to={`/teams/${encodeURIComponent(team.id)}`} className="btn btn-secondary btn-sm" data-testid="team-open-settings">
                    {t.openSettings}
                  </Link>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      {seats === 0 ? <UpgradePrompt /> : <CreateTeamForm />}
    </div>
  );
}

function CreateTeamForm() {
  const create = useCreateTeam();
  const navigate = useNavigate();
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [upgrade, setUpgrade] = useState<string | null>(null);
  if (upgrade !== null) return <UpgradePrompt message={upgrade} />;
  const submit = () => {
    const n = name.trim();
    if (!n || [...n].length > 100) return setError(t.createNameInvalid);
    setError(null);
    create.mutate(n, {
      onSuccess: (res) => {
        toast.success(t.created(n));
        if (res.team) void navigate(`/teams/${encodeURIComponent(res.team.id)}`);
      },
      onError: (err) => {
        if (isUpgradeRequired(err)) setUpgrade(errorMessage(err, "Failed to create the team"));
        else toast.error(errorMessage(err, "Failed to create the team"));
      },
    });
  };
  return (
    <section className="card team-create" aria-labelledby="team-create-title">
      <h2 id="team-create-title">{t.createTitle}</h2>
      <form
        className="form team-create-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <TextField
          label={t.createName}
          value={name}
          maxLength={100}
          placeholder={t.createNamePlaceholder}
          onChange={(e) => setName(e.target.value)}
          error={error}
          data-testid="team-create-name"
        />
        <Button type="submit" loading={create.isPending} data-testid="team-create">
          {t.create}
        </Button>
      </form>
    </section>
  );
}
