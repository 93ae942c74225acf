import { describe, expect, it } from "vitest";
import type { KeyboardCoordinateGetter } from "@dnd-kit/core";
import { columnId } from "../lib/board";
import { STAGES } from "../lib/stages";
import { columnKeyboardCoordinates } from "./board";

type Args = Parameters<KeyboardCoordinateGetter>[1];

/** Six columns side by side (desktop) or one under another (a phone). */
function layout(vertical: boolean) {
  const rects = new Map(
    STAGES.map((s, i) => {
      const left = vertical ? 0 : i * 200;
      const top = vertical ? i * 300 : 100;
      return [columnId(s), { left, top, width: 190, height: 280, right: left + 190, bottom: top + 280 }];
    }),
  );
  return rects;
}

function press(code: string, over: string | null, vertical = false) {
  let prevented = false;
  const event = { code, preventDefault: () => (prevented = true) } as unknown as KeyboardEvent;
  const args = {
    active: "item:1",
    currentCoordinates: { x: 0, y: 0 },
    context: { droppableRects: layout(vertical), collisionRect: { left: 5, top: 110, width: 180, height: 90 }, over: over ? { id: over } : null },
  } as unknown as Args;
  return { to: columnKeyboardCoordinates(event, args), prevented };
}

describe("the board's keyboard moves", () => {
  it("an arrow goes to the next or previous stage's column, not 25 px", () => {
    expect(press("ArrowRight", columnId("triage")).to).toEqual({ x: 205, y: 108 });
    expect(press("ArrowLeft", columnId("submitted")).to).toEqual({ x: 205, y: 108 });
    expect(press("ArrowRight", columnId("triage")).prevented).toBe(true);
  });
  it("stops at either end", () => {
    expect(press("ArrowLeft", columnId("triage")).to).toEqual({ x: 5, y: 108 });
    expect(press("ArrowRight", columnId("abandoned")).to).toEqual({ x: 1005, y: 108 });
  });
  it("on a phone the columns stand one under another: down is the next stage", () => {
    expect(press("ArrowDown", columnId("preparing"), true).to).toEqual({ x: 5, y: 608 });
    expect(press("ArrowUp", columnId("preparing"), true).to).toEqual({ x: 5, y: 8 });
  });
  it("other keys are not moves", () => {
    expect(press("KeyA", columnId("triage")).to).toBeUndefined();
  });
});
