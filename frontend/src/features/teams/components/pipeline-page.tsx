import { useCallback } from "react";
import { Link, Navigate, useParams, useSearchParams } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { Button } from "@/components/ui/button";
import { SelectControl } from "@/components/ui/select-control";
import { useAuthStore } from "@/stores/auth-store";
import { toast } from "@/stores/toast-store";
import type { PipelineItem, Team } from "@/gen/teams/v1/teams_pb";
import { useMembers, useMyTeams, usePipeline, useSaveItem } from "../api/teams-api";
import { canWrite as roleCanWrite, roleLabel } from "../lib/roles";
import { STAGES, isStage, stageLabel, type Stage } from "../lib/stages";
import { Board } from "./board";
import { ItemDrawer } from "./item-drawer";
import "../teams.css";

const t = th.teams;

/**
 * /pipeline?team=&stage=&owner=&item=: the team's shared pipeline, a column
 * per stage (a list per stage on a phone), filters by stage and owner, and
 * the item drawer.
 */
export function PipelinePage() {
  usePageTitle(t.pipelineTitle);
  const [params, setParams] = useSearchParams();
  const teams = useMyTeams();
  const wanted = params.get("team") ?? "";
  const team = teams.data?.find((x) => x.id === wanted) ?? teams.data?.[0];

  if (teams.isPending) return <p aria-busy="true">{th.common.loading}</p>;
  if (teams.isError)
    return (
      <p className="form-error" role="alert">
        {errorMessage(teams.error, "Failed to fetch data")}
      </p>
    );
  if (!team)
    return (
      <div className="state-card" data-testid="pipeline-no-team">
        <h1>{t.pipelineTitle}</h1>
        <p className="muted">{t.noTeams}</p>
        <Link to="/teams" className="btn btn-primary btn-md">
          {t.goTeams}
        </Link>
      </div>
    );
  return <TeamPipeline key={team.id} team={team} teams={teams.data} params={params} setParams={setParams} />;
}

/**
 * /teams/:teamId/pipeline?project=: the link of a team notification (a
 * mention, a stage change), to the board with that item's drawer open.
 */
export function TeamPipelineLink() {
  const { teamId = "" } = useParams();
  const [params] = useSearchParams();
  const next = new URLSearchParams({ team: teamId });
  const project = params.get("project") ?? params.get("item");
  if (project) next.set("item", project);
  return <Navigate to={`/pipeline?${next.toString()}`} replace />;
}

function TeamPipeline({
  team,
  teams,
  params,
  setParams,
}: {
  team: Team;
  teams: readonly Team[];
  params: URLSearchParams;
  setParams: ReturnType<typeof useSearchParams>[1];
}) {
  const me = useAuthStore((s) => s.user?.username ?? "");
  const stageParam = params.get("stage") ?? "";
  const stage = isStage(stageParam) ? stageParam : "";
  const owner = params.get("owner") ?? "";
  const open = params.get("item") ?? "";
  const members = useMembers(team.id);
  const list = usePipeline(team.id, { stage, owner });
  const save = useSaveItem(team.id);
  const writable = roleCanWrite(team.role) && !team.readOnly;
  const meId = members.data?.find((m) => m.username === me)?.userId ?? "";

  const set = useCallback(
    (patch: Record<string, string>) =>
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          next.set("team", team.id);
          for (const [k, v] of Object.entries(patch)) {
            if (v) next.set(k, v);
            else next.delete(k);
          }
          return next;
        },
        { replace: !("item" in patch) },
      ),
    [setParams, team.id],
  );
  const close = useCallback(() => set({ item: "" }), [set]);

  const move = (item: PipelineItem, to: Stage) => {
    if (item.stage === to) return;
    save.mutate(
      { projectId: item.projectId, patch: { stage: to } },
      { onSuccess: () => toast.success(t.moved(item.projectName || item.projectId, stageLabel(to))) },
    );
  };

  const items = list.data?.data ?? [];
  const stages: readonly Stage[] = stage ? [stage] : STAGES;
  return (
    <div className="pipeline-page" data-testid="pipeline-page" data-team-id={team.id}>
      <header className="teams-head">
        <div>
          <h1>{t.pipelineTitle}</h1>
          <p className="muted small">{t.pipelineLead}</p>
        </div>
        <div className="team-card-actions">
          <Link to="/teams" className="btn btn-ghost btn-sm" data-testid="pipeline-all-teams">
            {t.backToTeams}
          </Link>
          <Link to={`/teams/${encodeURIComponent(team.id)}`} className="btn btn-secondary btn-sm" data-testid="pipeline-team-settings">
            {t.openSettings}
          </Link>
        </div>
      </header>
      {!writable && (
        <p className="notice" data-testid="pipeline-read-only">
          {team.readOnly ? t.teamReadOnly : `${t.readOnly} (${roleLabel(team.role)})`}
        </p>
      )}
      <div className="pipeline-filters" role="group" aria-label={t.pipelineTitle}>
        {teams.length > 1 && (
          <SelectControl
            label={t.teamLabel}
            value={team.id}
            options={teams.map((x) => ({ value: x.id, label: x.name }))}
            onChange={(v) => setParams(new URLSearchParams({ team: v }))}
            testId="filter-team"
          />
        )}
        <SelectControl
          label={t.stageLabel}
          value={stage}
          options={[{ value: "", label: t.allStages }, ...STAGES.map((s) => ({ value: s, label: stageLabel(s) }))]}
          onChange={(v) => set({ stage: v })}
          testId="filter-stage"
        />
        <SelectControl
          label={t.ownerLabel}
          value={owner}
          options={[{ value: "", label: t.allOwners }, ...(members.data ?? []).map((m) => ({ value: m.userId, label: m.name || `@${m.username}` }))]}
          onChange={(v) => set({ owner: v })}
          testId="filter-owner"
        />
      </div>
      {list.isError ? (
        <div className="state-card state-error" role="alert">
          <p>{errorMessage(list.error, "Failed to fetch data")}</p>
          <Button variant="secondary" onClick={() => void list.refetch()}>
            {t.retry}
          </Button>
        </div>
      ) : list.isPending ? (
        <p aria-busy="true">{th.common.loading}</p>
      ) : (
        <>
          {items.length === 0 && !stage && !owner && (
            <p className="notice" data-testid="pipeline-empty">
              {t.emptyPipeline} <Link to="/search">{t.goSearch}</Link>
            </p>
          )}
          <Board items={items} stages={stages} members={members.data ?? []} canWrite={writable} onMove={move} onOpen={(id) => set({ item: id })} />
        </>
      )}
      {open && (
        <ItemDrawer
          teamId={team.id}
          projectId={open}
          row={items.find((i) => i.projectId === open)}
          members={members.data ?? []}
          me={meId}
          canWrite={writable}
          onClose={close}
        />
      )}
    </div>
  );
}
