import { errorReason } from "@/lib/errors";

/** The owner's plan has no teams (403, reason upgrade_required): the screen shows the plans, not a toast. */
export function isUpgradeRequired(err: unknown): boolean {
  return errorReason(err) === "upgrade_required";
}

/** Every seat of the plan is taken (409, reason seat_limit). */
export function isSeatLimit(err: unknown): boolean {
  return errorReason(err) === "seat_limit";
}
