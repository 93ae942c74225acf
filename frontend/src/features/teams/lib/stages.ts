import { th } from "@/i18n/th";

/** The pipeline's stages in board order (docs/product.md: a bid from triage to its outcome). */
export const STAGES = ["triage", "preparing", "submitted", "won", "lost", "abandoned"] as const;
export type Stage = (typeof STAGES)[number];

export function isStage(s: string): s is Stage {
  return (STAGES as readonly string[]).includes(s);
}

export function stageLabel(s: string): string {
  return isStage(s) ? th.teams.stages[s] : s;
}

/** The stage after or before s (the keyboard's move on a card), or null at either end. */
export function neighbourStage(s: Stage, step: -1 | 1): Stage | null {
  const i = STAGES.indexOf(s) + step;
  return i >= 0 && i < STAGES.length ? STAGES[i] : null;
}
