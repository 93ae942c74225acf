import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { formatThaiDate } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import type { Member, Team } from "@/gen/teams/v1/teams_pb";
import {
  isNotFound,
  tsDate,
  useInvitationActions,
  useInvitations,
  useMemberActions,
  useMembers,
  useTeam,
} from "../api/teams-api";
import { assignableRoles, canManage, canManageMember, ROLES, roleLabel } from "../lib/roles";
import { isSeatLimit, isUpgradeRequired } from "../lib/refusals";
import { ApiKeysSection } from "./api-keys";
import { TeamCalendarFeed } from "./team-calendar-feed";
import { UpgradePrompt } from "./upgrade-prompt";
import "../teams.css";

const t = th.teams;

/** /teams/:teamId: members and roles, invitations, seats, API keys and the team calendar. */
export function TeamSettingsPage() {
  const { teamId = "" } = useParams();
  const q = useTeam(teamId);
  usePageTitle(q.data ? t.settingsTitle(q.data.name) : t.teamsTitle);
  if (q.isPending) return <p aria-busy="true">{th.common.loading}</p>;
  if (q.isError || !q.data)
    return (
      <div className="state-card" role="alert" data-testid="team-not-found">
        <h1>{isNotFound(q.error) ? t.notFound : t.loadFailed}</h1>
        <Link to="/teams" className="btn btn-secondary btn-md">
          {t.backToTeams}
        </Link>
      </div>
    );
  const team = q.data;
  const manage = canManage(team.role) && !team.readOnly;
  return (
    <div className="teams-page team-settings" data-testid="team-settings">
      <Link to="/teams" className="back-link small">
        ← {t.backToTeams}
      </Link>
      <header className="teams-head">
        <div>
          <h1>{team.name}</h1>
          <p className="muted">
            {t.myRole(roleLabel(team.role))} ·{" "}
            <span data-testid="team-seats">{t.seats(team.seatsUsed, team.seats)}</span>
          </p>
          <p className="small muted">{t.seatsHint}</p>
          {team.readOnly && <p className="notice">{t.teamReadOnly}</p>}
        </div>
        <Link to={`/pipeline?team=${encodeURIComponent(team.id)}`} className="btn btn-primary btn-md">
          {t.openPipeline}
        </Link>
      </header>
      <MembersSection team={team} />
      {manage && <InviteSection team={team} />}
      {canManage(team.role) && <ApiKeysSection teamId={team.id} canEdit={manage} />}
      <TeamCalendarFeed teamId={team.id} canEdit={manage} />
    </div>
  );
}

function MembersSection({ team }: { team: Team }) {
  const me = useAuthStore((s) => s.user?.username ?? "");
  const members = useMembers(team.id);
  const { setRole, remove } = useMemberActions(team.id);
  const navigate = useNavigate();
  const roles = assignableRoles(team.role);
  const leave = (m: Member) => {
    if (!window.confirm(t.leaveConfirm(team.name))) return;
    remove.mutate(m.userId, {
      onSuccess: () => {
        toast.success(t.left(team.name));
        void navigate("/teams");
      },
    });
  };
  const drop = (m: Member) => {
    const who = m.name || m.username;
    if (!window.confirm(t.removeMemberConfirm(who))) return;
    remove.mutate(m.userId, { onSuccess: () => toast.success(t.memberRemoved(who)) });
  };
  return (
    <section className="card team-section" aria-labelledby="members-title" data-testid="team-members">
      <h2 id="members-title">{t.membersTitle}</h2>
      {members.isPending ? (
        <p aria-busy="true">{th.common.loading}</p>
      ) : members.isError ? (
        <p className="form-error" role="alert">
          {errorMessage(members.error, "Failed to fetch data")}
        </p>
      ) : (
        <ul className="member-list">
          {members.data.map((m) => {
            const self = m.username === me;
            const editable = !self && !team.readOnly && canManageMember(team.role, m.role);
            const who = m.name || m.username;
            return (
              <li key={m.userId} className="member-row" data-testid="member-row" data-username={m.username}>
                <div className="member-who">
                  <strong>
                    {who} {self && <span className="muted small">{t.youTag}</span>}
                  </strong>
                  <span className="small muted">
                    @{m.username}
                    {m.email ? ` · ${m.email}` : ""}
                  </span>
                </div>
                <div className="member-actions">
                  {editable ? (
                    <label className="control">
                      <span className="sr-only">{t.roleOf(who)}</span>
                      <select
                        value={m.role}
                        data-testid="member-role"
                        disabled={setRole.isPending}
                        onChange={(e) =>
                          setRole.mutate(
                            { userId: m.userId, role: e.target.value },
                            { onSuccess: (_r, v) => toast.success(t.roleChanged(who, roleLabel(v.role))) },
                          )
                        }
                      >
                        {ROLES.filter((r) => r === m.role || roles.includes(r)).map((r) => (
                          <option key={r} value={r}>
                            {roleLabel(r)}
                          </option>
                        ))}
                      </select>
                    </label>
                  ) : (
                    <span className="chip" data-testid="member-role-label">
                      {roleLabel(m.role)}
                    </span>
                  )}
                  {self ? (
                    <Button size="sm" variant="ghost" onClick={() => leave(m)} data-testid="member-leave">
                      {t.leave}
                    </Button>
                  ) : (
                    editable && (
                      <Button size="sm" variant="ghost" onClick={() => drop(m)} data-testid="member-remove">
                        {t.removeMember}
                      </Button>
                    )
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function InviteSection({ team }: { team: Team }) {
  const roles = assignableRoles(team.role).filter((r) => r !== "owner");
  const pending = useInvitations(team.id, true);
  const { invite, revoke } = useInvitationActions(team.id);
  const [email, setEmail] = useState("");
  const [role, setRoleValue] = useState<string>("member");
  const [error, setError] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<{ upgrade: boolean; text: string } | null>(null);
  const submit = () => {
    const e = email.trim();
    if (!EMAIL.test(e)) return setError(t.inviteEmailInvalid);
    setError(null);
    setRefusal(null);
    invite.mutate(
      { email: e, role },
      {
        onSuccess: () => {
          toast.success(t.invited(e));
          setEmail("");
        },
        onError: (err) => {
          const text = errorMessage(err, "Failed to send the invitation");
          if (isSeatLimit(err) || isUpgradeRequired(err)) setRefusal({ upgrade: isUpgradeRequired(err), text });
          else toast.error(text);
        },
      },
    );
  };
  return (
    <section className="card team-section" aria-labelledby="invite-title" data-testid="team-invite">
      <h2 id="invite-title">{t.inviteTitle}</h2>
      <p className="muted small">{t.inviteLead}</p>
      <form
        className="form invite-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <TextField
          label={t.inviteEmail}
          type="email"
          autoComplete="off"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={error}
          data-testid="invite-email"
        />
        <label className="field">
          <span className="field-label">{t.inviteRole}</span>
          <select className="invite-role" value={role} onChange={(e) => setRoleValue(e.target.value)} data-testid="invite-role">
            {roles.map((r) => (
              <option key={r} value={r}>
                {roleLabel(r)} – {t.roleHints[r]}
              </option>
            ))}
          </select>
        </label>
        <Button type="submit" loading={invite.isPending} data-testid="invite-send">
          {t.invite}
        </Button>
      </form>
      {refusal &&
        (refusal.upgrade ? (
          <UpgradePrompt message={refusal.text} />
        ) : (
          <p className="notice notice-error" role="alert" data-testid="invite-seat-limit">
            {refusal.text}{" "}
            <Link to="/user-settings/pricing">{t.upgrade}</Link>
          </p>
        ))}
      {pending.data && pending.data.length > 0 && (
        <div className="pending-invites">
          <h3>{t.pendingTitle}</h3>
          <ul className="member-list">
            {pending.data.map((inv) => {
              const exp = tsDate(inv.expiresAt);
              return (
                <li key={inv.id} className="member-row" data-testid="invite-row">
                  <div className="member-who">
                    <strong>{inv.email}</strong>
                    <span className="small muted">
                      {roleLabel(inv.role)}
                      {exp ? ` · ${t.pendingExpires(formatThaiDate(exp))}` : ""}
                    </span>
                  </div>
                  <Button size="sm" variant="ghost" loading={revoke.isPending && revoke.variables === inv.id} onClick={() => revoke.mutate(inv.id)}>
                    {th.common.cancel}
                  </Button>
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </section>
  );
}
