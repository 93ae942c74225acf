import { useMemo, useState } from "react";
import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  pointerWithin,
  rectIntersection,
  useDraggable,
  useDroppable,
  useSensor,
  useSensors,
  type Announcements,
  type CollisionDetection,
  type DragEndEvent,
  type KeyboardCoordinateGetter,
} from "@dnd-kit/core";
import { th } from "@/i18n/th";
import { formatIsoDateBE } from "@/lib/format";
import type { Member, PipelineItem } from "@/gen/teams/v1/teams_pb";
import { byStage, cardId, columnId, dropMove, projectOfCardId, stageOfColumnId } from "../lib/board";
import { formatSatangBaht, parseSatang } from "../lib/money";
import { STAGES, stageLabel, type Stage } from "../lib/stages";

const t = th.teams;

type Props = {
  items: readonly PipelineItem[];
  /** The stages shown (a stage filter shows one). */
  stages: readonly Stage[];
  members: readonly Member[];
  canWrite: boolean;
  onMove: (item: PipelineItem, to: Stage) => void;
  onOpen: (projectId: string) => void;
};

/**
 * The keyboard's move while a card is lifted: arrows go to the previous or
 * next stage's column (whether the columns stand side by side or, on a
 * phone, one under another), not 25 px at a time.
 */
export const columnKeyboardCoordinates: KeyboardCoordinateGetter = (event, { context: { droppableRects, collisionRect, over } }) => {
  const dir = event.code === "ArrowRight" || event.code === "ArrowDown" ? 1 : event.code === "ArrowLeft" || event.code === "ArrowUp" ? -1 : 0;
  if (!dir || !collisionRect) return undefined;
  event.preventDefault();
  const cols = STAGES.map((s) => ({ s, rect: droppableRects.get(columnId(s)) })).filter((c) => c.rect);
  if (cols.length === 0) return undefined;
  const here = stageOfColumnId(over?.id);
  const i = here ? cols.findIndex((c) => c.s === here) : -1;
  const next = cols[Math.max(0, Math.min(cols.length - 1, i + dir))];
  const r = next.rect!;
  return { x: r.left + Math.max(0, (r.width - collisionRect.width) / 2), y: r.top + 8 };
};

/** The pointer's column when there is a pointer; the keyboard's by overlap. */
const collision: CollisionDetection = (args) => {
  const hits = args.pointerCoordinates ? pointerWithin(args) : [];
  return hits.length > 0 ? hits : rectIntersection(args);
};

export function Board({ items, stages, members, canWrite, onMove, onOpen }: Props) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 6 } }),
    useSensor(KeyboardSensor, { coordinateGetter: columnKeyboardCoordinates }),
  );
  const groups = useMemo(() => byStage(items), [items]);
  const [dragging, setDragging] = useState<string | null>(null);
  const nameOf = (id: string | number | undefined) => {
    const p = projectOfCardId(id ?? null);
    return items.find((i) => i.projectId === p)?.projectName ?? "";
  };
  const announcements: Announcements = {
    onDragStart: ({ active }) => t.dndPickedUp(nameOf(active.id)),
    onDragOver: ({ active, over }) => (over ? t.dndOver(nameOf(active.id), stageLabel(stageOfColumnId(over.id) ?? "")) : undefined),
    onDragEnd: ({ active, over }) => (over ? t.dndDropped(nameOf(active.id), stageLabel(stageOfColumnId(over.id) ?? "")) : t.dndCancelled(nameOf(active.id))),
    onDragCancel: ({ active }) => t.dndCancelled(nameOf(active.id)),
  };
  const onDragEnd = (e: DragEndEvent) => {
    setDragging(null);
    const move = dropMove(items, e.active.id, e.over?.id);
    if (!move) return;
    const item = items.find((i) => i.projectId === move.projectId);
    if (item) onMove(item, move.to);
  };

  return (
    <DndContext
      sensors={sensors}
      collisionDetection={collision}
      accessibility={{ announcements, screenReaderInstructions: { draggable: t.dndInstructions } }}
      onDragStart={(e) => setDragging(projectOfCardId(e.active.id))}
      onDragCancel={() => setDragging(null)}
      onDragEnd={onDragEnd}
    >
      <div className={`board board-${stages.length === 1 ? "single" : "all"}`} data-testid="board" data-dragging={dragging ?? undefined}>
        {stages.map((s) => (
          <Column key={s} stage={s} items={groups[s]} members={members} canWrite={canWrite} onMove={onMove} onOpen={onOpen} dragging={dragging} />
        ))}
      </div>
    </DndContext>
  );
}

function Column({
  stage,
  items,
  members,
  canWrite,
  onMove,
  onOpen,
  dragging,
}: {
  stage: Stage;
  items: PipelineItem[];
  members: readonly Member[];
  canWrite: boolean;
  onMove: (item: PipelineItem, to: Stage) => void;
  onOpen: (projectId: string) => void;
  dragging: string | null;
}) {
  const { setNodeRef, isOver } = useDroppable({ id: columnId(stage), disabled: !canWrite });
  const headId = `col-${stage}`;
  return (
    <section ref={setNodeRef} className={`board-col stage-${stage}${isOver ? " over" : ""}`} aria-labelledby={headId} data-testid={`column-${stage}`} data-stage={stage}>
      <h2 id={headId} className="board-col-head">
        <span>{stageLabel(stage)}</span>
        <span className="chip chip-soft" data-testid="column-count">
          {items.length.toLocaleString("th-TH")}
        </span>
      </h2>
      {items.length === 0 ? (
        <p className="board-empty small muted">{t.columnEmpty}</p>
      ) : (
        <ul className="board-cards">
          {items.map((it) => (
            <Card key={it.projectId} item={it} members={members} canWrite={canWrite} onMove={onMove} onOpen={onOpen} lifted={dragging === it.projectId} />
          ))}
        </ul>
      )}
    </section>
  );
}

function Card({
  item,
  members,
  canWrite,
  onMove,
  onOpen,
  lifted,
}: {
  item: PipelineItem;
  members: readonly Member[];
  canWrite: boolean;
  onMove: (item: PipelineItem, to: Stage) => void;
  onOpen: (projectId: string) => void;
  lifted: boolean;
}) {
  const { attributes, listeners, setNodeRef, transform } = useDraggable({ id: cardId(item.projectId), disabled: !canWrite });
  const style = transform ? { transform: `translate3d(${transform.x}px, ${transform.y}px, 0)` } : undefined;
  const owner = members.find((m) => m.userId === item.ownerUserId);
  const bid = item.bidPrice ? parseSatang(item.bidPrice) : null;
  const budget = item.budget ? parseSatang(item.budget) : null;
  return (
    <li ref={setNodeRef} style={style} className={`board-card card${lifted ? " lifted" : ""}`} data-testid="board-card" data-project-id={item.projectId} data-stage={item.stage}>
      <div className="board-card-top">
        {canWrite && (
          <button type="button" className="drag-handle" aria-label={t.dragHandle(item.projectName || item.projectId)} data-testid="drag-handle" {...attributes} {...listeners}>
            <svg width="14" height="20" viewBox="0 0 14 20" aria-hidden="true">
              {[4, 10].map((x) => [4, 10, 16].map((y) => <circle key={`${x}-${y}`} cx={x} cy={y} r="1.6" fill="currentColor" />))}
            </svg>
          </button>
        )}
        <button type="button" className="board-card-title" onClick={() => onOpen(item.projectId)} data-testid="card-open">
          {item.projectName || item.projectId}
        </button>
      </div>
      <p className="board-card-agency small muted">{item.agency}</p>
      <dl className="board-card-meta small">
        {budget !== null && (
          <div>
            <dt>{t.budget}</dt>
            <dd>{formatSatangBaht(budget)}</dd>
          </div>
        )}
        {bid !== null && (
          <div data-testid="card-bid">
            <dt className="sr-only">{t.bidLabel}</dt>
            <dd>{t.bid(formatSatangBaht(bid))}</dd>
          </div>
        )}
      </dl>
      <p className="board-card-dates small">
        {item.dueDate && <span className="chip">{t.due(formatIsoDateBE(item.dueDate))}</span>}
        {item.deadline && <span className="chip chip-soft">{t.deadline(formatIsoDateBE(item.deadline))}</span>}
      </p>
      <div className="board-card-foot small">
        <span className="muted" data-testid="card-owner">
          {owner ? owner.name || `@${owner.username}` : t.noOwner}
        </span>
        {item.commentCount > 0 && <span className="chip chip-soft">{t.commentCount(item.commentCount)}</span>}
      </div>
      {canWrite && (
        <label className="board-card-move small">
          <span>{t.moveTo}</span>
          <select value={item.stage} onChange={(e) => onMove(item, e.target.value as Stage)} data-testid="card-stage">
            {STAGES.map((s) => (
              <option key={s} value={s}>
                {stageLabel(s)}
              </option>
            ))}
          </select>
        </label>
      )}
    </li>
  );
}
