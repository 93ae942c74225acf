import { STAGES, isStage, type Stage } from "./stages";

/** Items by stage, in board order; an item of a stage this app does not know is left out. */
export function byStage<T extends { stage: string }>(items: readonly T[]): Record<Stage, T[]> {
  const out = Object.fromEntries(STAGES.map((s) => [s, [] as T[]])) as Record<Stage, T[]>;
  for (const it of items) if (isStage(it.stage)) out[it.stage].push(it);
  return out;
}

/** Ids of the board's droppable columns and draggable cards. */
export const columnId = (s: Stage) => `stage:${s}`;
export const cardId = (projectId: string) => `item:${projectId}`;

export function stageOfColumnId(id: string | number | null | undefined): Stage | null {
  if (typeof id !== "string" || !id.startsWith("stage:")) return null;
  const s = id.slice(6);
  return isStage(s) ? s : null;
}

export function projectOfCardId(id: string | number | null | undefined): string | null {
  return typeof id === "string" && id.startsWith("item:") ? id.slice(5) : null;
}

/**
 * The move a drop asks for: the project and its new stage, or null when the
 * card was dropped outside a column or back on its own stage.
 */
export function dropMove<T extends { projectId: string; stage: string }>(
  items: readonly T[],
  active: string | number,
  over: string | number | null | undefined,
): { projectId: string; from: string; to: Stage } | null {
  const projectId = projectOfCardId(active);
  const to = stageOfColumnId(over) ?? stageOfCard(items, over);
  if (!projectId || !to) return null;
  const item = items.find((i) => i.projectId === projectId);
  if (!item || item.stage === to) return null;
  return { projectId, from: item.stage, to };
}

function stageOfCard<T extends { projectId: string; stage: string }>(items: readonly T[], over: string | number | null | undefined): Stage | null {
  const p = projectOfCardId(over);
  const s = p ? items.find((i) => i.projectId === p)?.stage : undefined;
  return s && isStage(s) ? s : null;
}

/** The items with one moved to a stage (the board's optimistic copy). */
export function withStage<T extends { projectId: string; stage: string }>(items: readonly T[], projectId: string, stage: Stage): T[] {
  return items.map((i) => (i.projectId === projectId ? { ...i, stage } : i));
}
