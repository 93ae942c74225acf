import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { getClient } from "@/lib/clients";
import { queryKeys } from "@/lib/query-keys";
import { asConnectError, errorMessage } from "@/lib/errors";
import { TeamsService, type ListPipelineResponse, type PipelineItem } from "@/gen/teams/v1/teams_pb";
import type { MessageKey } from "@/i18n/th";
import { toast } from "@/stores/toast-store";
import type { Stage } from "../lib/stages";

const teams = () => getClient(TeamsService);
const keys = queryKeys.teams;

export function tsDate(ts: Timestamp | undefined): Date | null {
  return ts ? timestampDate(ts) : null;
}

/** A team's paths answer NotFound to a non-member (its existence is not revealed). */
export function isNotFound(err: unknown): boolean {
  return asConnectError(err).code === Code.NotFound;
}

const fail = (fallback: MessageKey) => (err: unknown) => toast.error(errorMessage(err, fallback));

/** The signed-in user's teams with their role. */
export function useMyTeams(enabled = true) {
  return useQuery({
    queryKey: keys.mine(),
    queryFn: async ({ signal }) => (await teams().listTeams({}, { signal })).data,
    enabled,
    staleTime: 60_000,
  });
}

export function useTeam(teamId: string) {
  return useQuery({
    queryKey: keys.one(teamId),
    queryFn: async ({ signal }) => (await teams().getTeam({ teamId }, { signal })).team,
    enabled: !!teamId,
    staleTime: 30_000,
  });
}

export function useMembers(teamId: string) {
  return useQuery({
    queryKey: keys.members(teamId),
    queryFn: async ({ signal }) => (await teams().listMembers({ teamId }, { signal })).data,
    enabled: !!teamId,
    staleTime: 30_000,
  });
}

export function useInvitations(teamId: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.invitations(teamId),
    queryFn: async ({ signal }) => (await teams().listInvitations({ teamId }, { signal })).data,
    enabled: !!teamId && enabled,
  });
}

export function useApiKeys(teamId: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.apiKeys(teamId),
    queryFn: async ({ signal }) => (await teams().listApiKeys({ teamId }, { signal })).data,
    enabled: !!teamId && enabled,
  });
}

export function useCreateTeam() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => teams().createTeam({ name }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.mine() }),
  });
}

/** Role changes, removals and leaving: the team's counts and the member list reload. */
export function useMemberActions(teamId: string) {
  const qc = useQueryClient();
  const done = () => {
    void qc.invalidateQueries({ queryKey: keys.members(teamId) });
    void qc.invalidateQueries({ queryKey: keys.one(teamId) });
    void qc.invalidateQueries({ queryKey: keys.mine() });
  };
  return {
    setRole: useMutation({
      mutationFn: (v: { userId: string; role: string }) => teams().updateMember({ teamId, userId: v.userId, role: v.role }),
      onSuccess: done,
      onError: fail("Failed to update the team"),
    }),
    remove: useMutation({
      mutationFn: (userId: string) => teams().removeMember({ teamId, userId }),
      onSuccess: done,
      onError: fail("Failed to update the team"),
    }),
  };
}

export function useInvitationActions(teamId: string) {
  const qc = useQueryClient();
  const done = () => {
    void qc.invalidateQueries({ queryKey: keys.invitations(teamId) });
    void qc.invalidateQueries({ queryKey: keys.one(teamId) });
  };
  return {
    invite: useMutation({
      mutationFn: (v: { email: string; role: string }) => teams().createInvitation({ teamId, email: v.email, role: v.role }),
      onSuccess: done,
    }),
    revoke: useMutation({
      mutationFn: (invitationId: string) => teams().revokeInvitation({ teamId, invitationId }),
      onSuccess: done,
      onError: fail("Failed to update the team"),
    }),
  };
}

export function useAcceptInvitation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => teams().acceptInvitation({ code }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.all }),
  });
}

export function useApiKeyActions(teamId: string) {
  const qc = useQueryClient();
  const done = () => void qc.invalidateQueries({ queryKey: keys.apiKeys(teamId) });
  return {
    create: useMutation({
      mutationFn: (v: { name: string; scopes: string[] }) => teams().createApiKey({ teamId, name: v.name, scopes: v.scopes }),
      onSuccess: done,
      onError: fail("Failed to manage the API key"),
    }),
    revoke: useMutation({
      mutationFn: (keyId: string) => teams().revokeApiKey({ teamId, keyId }),
      onSuccess: done,
      onError: fail("Failed to manage the API key"),
    }),
  };
}

export function useTeamCalendarFeed(teamId: string) {
  return useQuery({
    queryKey: keys.calendarFeed(teamId),
    queryFn: async ({ signal }) => (await teams().getCalendarFeed({ teamId }, { signal })).feed,
    enabled: !!teamId,
    staleTime: 60_000,
  });
}

export function useTeamCalendarFeedActions(teamId: string) {
  const qc = useQueryClient();
  const done = () => void qc.invalidateQueries({ queryKey: keys.calendarFeed(teamId) });
  return {
    rotate: useMutation({ mutationFn: () => teams().rotateCalendarFeed({ teamId }), onSuccess: done, onError: fail("Failed to update the team") }),
    revoke: useMutation({ mutationFn: () => teams().revokeCalendarFeed({ teamId }), onSuccess: done, onError: fail("Failed to update the team") }),
  };
}

/* ---------- the pipeline ---------- */

export type PipelineFilter = { stage: string; owner: string };

/** The board's page: up to 200 items (the server's page size cap), filtered by stage and owner. */
export function usePipeline(teamId: string, f: PipelineFilter) {
  return useQuery({
    queryKey: keys.pipeline(teamId, f),
    queryFn: async ({ signal }) =>
      teams().listPipeline({ teamId, stage: f.stage, ownerUserId: f.owner, page: 1, perPage: 200 }, { signal }),
    enabled: !!teamId,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
}

export function usePipelineItem(teamId: string, projectId: string) {
  return useQuery({
    queryKey: keys.item(teamId, projectId),
    queryFn: async ({ signal }) => (await teams().getPipelineItem({ teamId, projectId }, { signal })).item,
    enabled: !!teamId && !!projectId,
  });
}

export function useItemHistory(teamId: string, projectId: string, enabled = true) {
  return useQuery({
    queryKey: keys.history(teamId, projectId),
    queryFn: async ({ signal }) => (await teams().listItemHistory({ teamId, projectId }, { signal })).data,
    enabled: !!teamId && !!projectId && enabled,
  });
}

export function useItemComments(teamId: string, projectId: string, enabled = true) {
  return useQuery({
    queryKey: keys.comments(teamId, projectId),
    queryFn: async ({ signal }) => (await teams().listComments({ teamId, projectId }, { signal })).data,
    enabled: !!teamId && !!projectId && enabled,
  });
}

/** The fields a PUT may carry: each changed only when given ("" clears owner, due date and bid price). */
export type ItemPatch = { stage?: Stage; ownerUserId?: string; dueDate?: string; bidPrice?: string; note?: string };

function patchCached(qc: QueryClient, teamId: string, projectId: string, p: ItemPatch) {
  qc.setQueriesData<ListPipelineResponse>({ queryKey: keys.pipelines(teamId) }, (old) =>
    old ? { ...old, data: old.data.map((i) => (i.projectId === projectId ? { ...i, ...defined(p) } : i)) } : old,
  );
  qc.setQueryData<PipelineItem>(keys.item(teamId, projectId), (old) => (old ? { ...old, ...defined(p) } : old));
}

function defined(p: ItemPatch): Partial<PipelineItem> {
  const out: Partial<PipelineItem> = {};
  for (const [k, v] of Object.entries(p) as [keyof ItemPatch, string | undefined][]) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * PUT of an item: optimistic on the board and the drawer (a drag lands at
 * once), rolled back with a toast when the server refuses; the server's row
 * then replaces the guess.
 */
export function useSaveItem(teamId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { projectId: string; patch: ItemPatch }) => teams().putPipelineItem({ teamId, projectId: v.projectId, ...v.patch }),
    onMutate: async (v) => {
      await qc.cancelQueries({ queryKey: keys.pipelines(teamId) });
      const lists = qc.getQueriesData({ queryKey: keys.pipelines(teamId) });
      const one = qc.getQueryData(keys.item(teamId, v.projectId));
      patchCached(qc, teamId, v.projectId, v.patch);
      return { lists, one };
    },
    onError: (err, v, ctx) => {
      if (ctx) {
        for (const [key, data] of ctx.lists) qc.setQueryData(key, data);
        qc.setQueryData(keys.item(teamId, v.projectId), ctx.one);
      }
      toast.error(errorMessage(err, "Failed to save the pipeline item"));
    },
    onSuccess: (res, v) => {
      if (res.item) qc.setQueryData(keys.item(teamId, v.projectId), res.item);
    },
    onSettled: (_r, _e, v) => {
      void qc.invalidateQueries({ queryKey: keys.pipelines(teamId) });
      void qc.invalidateQueries({ queryKey: keys.history(teamId, v.projectId) });
    },
  });
}

/** Adding a project (a PUT without fields: it starts in triage); an existing item is left as it is. */
export function useAddToPipeline() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { teamId: string; projectId: string }) => teams().putPipelineItem({ teamId: v.teamId, projectId: v.projectId }),
    onSuccess: (_r, v) => void qc.invalidateQueries({ queryKey: keys.pipelines(v.teamId) }),
    onError: fail("Failed to save the pipeline item"),
  });
}

export function useDeleteItem(teamId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (projectId: string) => teams().deletePipelineItem({ teamId, projectId }),
    onSuccess: (_r, projectId) => {
      void qc.invalidateQueries({ queryKey: keys.pipelines(teamId) });
      qc.removeQueries({ queryKey: keys.item(teamId, projectId), exact: true });
    },
    onError: fail("Failed to save the pipeline item"),
  });
}

export function useAddComment(teamId: string, projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (text: string) => teams().addComment({ teamId, projectId, text }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: keys.comments(teamId, projectId) });
      void qc.invalidateQueries({ queryKey: keys.pipelines(teamId) });
    },
    onError: fail("Failed to send the team comment"),
  });
}
