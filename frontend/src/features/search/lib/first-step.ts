import { create } from "zustand";
import { selectUser, useAuthStore } from "@/stores/auth-store";
import { useSavedCriteria } from "../api/search-api";

/**
 * Who skipped the first step in this tab. Kept in memory only: the browser
 * keeps nothing but the session and the stored bids, and the step returning
 * in a later session, while there is still no saved search, is the point.
 */
const useSkipped = create<{ users: Record<string, true> }>(() => ({ users: {} }));

export function skipFirstStep(userId: string) {
  useSkipped.setState((s) => ({ users: { ...s.users, [userId]: true } }));
}

/** For tests: nobody has skipped. */
export function resetFirstStep() {
  useSkipped.setState({ users: {} });
}

export type FirstStepState = "none" | "pending" | "show";

/**
 * Whether "/" shows the first step instead of the landing page: to a
 * signed-in user who has no saved search (without one no alert ever comes)
 * and has not skipped it. If the saved searches cannot be read, the landing
 * page shows: the step is an offer, never a wall.
 */
export function useFirstStep(): FirstStepState {
  const user = useAuthStore(selectUser);
  const skipped = useSkipped((s) => !!user && !!s.users[user.idUser]);
  const saved = useSavedCriteria(!!user && !skipped);
  if (!user || skipped) return "none";
  if (saved.isPending) return "pending";
  if (saved.isError) return "none";
  return saved.data.criteria.length === 0 ? "show" : "none";
}

/** Router state with which the first step asks the search page to open its save dialog once. */
export const SAVE_ON_ARRIVAL = { saveOnArrival: true } as const;

export function wantsSaveOnArrival(state: unknown): boolean {
  return typeof state === "object" && state !== null && (state as { saveOnArrival?: unknown }).saveOnArrival === true;
}
