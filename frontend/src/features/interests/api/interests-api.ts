import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { getClient } from "@/lib/clients";
import { queryKeys } from "@/lib/query-keys";
import { errorMessage } from "@/lib/errors";
import { InterestsService, type UserInterest } from "@/gen/interests/v1/interests_pb";
import type { ListProjectsResponse } from "@/gen/projects/v1/projects_pb";
import type { MessageKey } from "@/i18n/th";
import { toast } from "@/stores/toast-store";

const interests = () => getClient(InterestsService);

/** The marks a user sets on a project (docs/product.md#user-interest). */
export type Marks = { like: boolean; follow: boolean; fill20: boolean; bid: boolean; archived: boolean };

export function marksOf(i: Pick<UserInterest, "isUserLike" | "isInterestToStepChk" | "isFill20" | "isInterestToBid" | "archived"> | undefined): Marks {
  return {
    like: !!i?.isUserLike,
    follow: !!i?.isInterestToStepChk,
    fill20: !!i?.isFill20,
    bid: !!i?.isInterestToBid,
    archived: !!i?.archived,
  };
}

/** The lookup for one project (docs/product.md#interest-lookup): active, else archived, else all false. */
export function useInterest(projectId: string | null) {
  return useQuery({
    queryKey: queryKeys.interests.one(projectId ?? ""),
    queryFn: async ({ signal }) => (await interests().getInterest({ projectId: projectId! }, { signal })).data,
    enabled: !!projectId,
    staleTime: 30_000,
  });
}

export type MarkPatch = Partial<Marks>;

function patchRequest(projectId: string, p: MarkPatch) {
  return {
    projectId,
    isUserLike: p.like,
    isInterestToStepChk: p.follow,
    isFill20: p.fill20,
    isInterestToBid: p.bid,
    archived: p.archived,
  };
}

/** Apply a patch to every cached copy of the project's marks: the lookup and the search rows. */
function applyEverywhere(qc: QueryClient, projectId: string, p: MarkPatch) {
  qc.setQueryData<UserInterest>(queryKeys.interests.one(projectId), (old) =>
    old
      ? {
          ...old,
          isUserLike: p.like ?? old.isUserLike,
          isInterestToStepChk: p.follow ?? old.isInterestToStepChk,
          isFill20: p.fill20 ?? old.isFill20,
          isInterestToBid: p.bid ?? old.isInterestToBid,
          archived: p.archived ?? old.archived,
        }
      : old,
  );
  qc.setQueriesData<ListProjectsResponse>({ queryKey: queryKeys.projects.lists() }, (old) =>
    old
      ? {
          ...old,
          data: old.data.map((row) =>
            row.projectId !== projectId
              ? row
              : {
                  ...row,
                  isUserLike: p.like ?? row.isUserLike,
                  isInterestToStepChk: p.follow ?? row.isInterestToStepChk,
                  isFill20: p.fill20 ?? row.isFill20,
                  isInterestToBid: p.bid ?? row.isInterestToBid,
                  isArchived: p.archived ?? row.isArchived,
                },
          ),
        }
      : old,
  );
}

/**
 * PATCH /userInterests/{projectId} for marks: optimistic on every cached
 * copy, rolled back with a toast when the server refuses.
 */
export function useSetMarks(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (p: MarkPatch) => interests().updateInterest(patchRequest(projectId, p)),
    onMutate: async (p) => {
      await qc.cancelQueries({ queryKey: queryKeys.interests.one(projectId) });
      const one = qc.getQueryData(queryKeys.interests.one(projectId));
      const lists = qc.getQueriesData({ queryKey: queryKeys.projects.lists() });
      applyEverywhere(qc, projectId, p);
      return { one, lists };
    },
    onError: (err, _p, ctx) => {
      if (ctx) {
        qc.setQueryData(queryKeys.interests.one(projectId), ctx.one);
        for (const [key, data] of ctx.lists) qc.setQueryData(key, data);
      }
      toast.error(errorMessage(err, "Failed to save your mark"));
    },
    onSuccess: (res) => {
      if (res.data) qc.setQueryData(queryKeys.interests.one(projectId), res.data);
    },
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: queryKeys.interests.lists() });
      void qc.invalidateQueries({ queryKey: queryKeys.projects.lists() });
    },
  });
}

/** PATCH of the bid: price or percent (the server computes the other). */
export function useSaveBid(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: { bidPrice?: number; reductionPercent?: number; clear?: boolean }) =>
      interests().updateInterest({ projectId, bidPrice: b.bidPrice, reductionPercent: b.reductionPercent, clearBid: !!b.clear }),
    onError: (err, b) => {
      const fallback: MessageKey = b.reductionPercent !== undefined && b.bidPrice === undefined ? "Failed to save reduction percent" : "Failed to save bid price";
      toast.error(errorMessage(err, fallback));
    },
    onSuccess: (res) => {
      if (res.data) qc.setQueryData(queryKeys.interests.one(projectId), res.data);
      void qc.invalidateQueries({ queryKey: queryKeys.interests.lists() });
      // The search rows carry the bid too.
      void qc.invalidateQueries({ queryKey: queryKeys.projects.lists() });
    },
  });
}

/** The order of "my projects": newest change first ("") or by deadline; closingDays > 0: closing within that many days. */
export type ListOrder = { sort: "" | "deadline"; closingDays: number };

/** GET /userInterests/active or /archived (the app asks page 1, size 100). */
export function useInterestList(archived: boolean, order: ListOrder = { sort: "", closingDays: 0 }) {
  const req = { page: 1, perPage: 100, sort: order.sort, closingWithinDays: order.closingDays };
  return useQuery({
    queryKey: queryKeys.interests.list(archived, order),
    queryFn: async ({ signal }) =>
      archived ? await interests().listArchivedInterests(req, { signal }) : await interests().listActiveInterests(req, { signal }),
    placeholderData: keepPreviousData,
    staleTime: 15_000,
  });
}

/** The calendar link's state: whether one exists and since when (its secret is shown only when made). */
export function useCalendarFeed() {
  return useQuery({
    queryKey: queryKeys.interests.calendarFeed(),
    queryFn: async ({ signal }) => (await interests().getCalendarFeed({}, { signal })).feed,
    staleTime: 60_000,
  });
}

/** Make a new calendar link (the old one stops) or revoke it. */
export function useCalendarFeedActions() {
  const qc = useQueryClient();
  const done = () => void qc.invalidateQueries({ queryKey: queryKeys.interests.calendarFeed() });
  const fail = (err: unknown) => toast.error(errorMessage(err, "Failed to fetch data"));
  return {
    rotate: useMutation({ mutationFn: () => interests().rotateCalendarFeed({}), onSuccess: done, onError: fail }),
    revoke: useMutation({ mutationFn: () => interests().revokeCalendarFeed({}), onSuccess: done, onError: fail }),
  };
}

/**
 * GET /userInterests/{id}/comments, asked only when the lookup says the record
 * has comments: without a record the server answers 404
 * (docs/product.md#records-comments-and-bids), which is no error for a page
 * that simply has no comments yet.
 */
export function useComments(projectId: string, commentCount: number | undefined) {
  return useQuery({
    queryKey: queryKeys.interests.comments(projectId),
    queryFn: async ({ signal }) => (await interests().listComments({ id: projectId }, { signal })).comments,
    enabled: (commentCount ?? 0) > 0,
  });
}

export function useCommentActions(projectId: string) {
  const qc = useQueryClient();
  const done = () => {
    void qc.invalidateQueries({ queryKey: queryKeys.interests.comments(projectId) });
    void qc.invalidateQueries({ queryKey: queryKeys.interests.one(projectId) });
    void qc.invalidateQueries({ queryKey: queryKeys.interests.lists() });
  };
  const fail = (err: unknown) => toast.error(errorMessage(err, "Failed to save your comment"));
  return {
    add: useMutation({ mutationFn: (text: string) => interests().addComment({ id: projectId, commentText: text }), onSuccess: done, onError: fail }),
    edit: useMutation({
      mutationFn: (v: { id: string; text: string }) => interests().updateComment({ id: projectId, commentId: v.id, commentText: v.text }),
      onSuccess: done,
      onError: fail,
    }),
    remove: useMutation({ mutationFn: (id: string) => interests().deleteComment({ id: projectId, commentId: id }), onSuccess: done, onError: fail }),
  };
}

export function tsToDate(ts: { seconds: bigint; nanos: number } | undefined): Date | null {
  return ts ? timestampDate(ts as Parameters<typeof timestampDate>[0]) : null;
}
