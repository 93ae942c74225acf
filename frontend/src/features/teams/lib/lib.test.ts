import { describe, expect, it } from "vitest";
import { th } from "@/i18n/th";
import { byStage, cardId, columnId, dropMove, withStage } from "./board";
import { actorName, fieldLabel, fieldValue } from "./history";
import { insertMention, mentionAt, mentionCandidates, mentionedUsernames } from "./mentions";
import { formatSatang, formatSatangBaht, parseSatang } from "./money";
import { assignableRoles, canManage, canManageMember, canWrite } from "./roles";
import { STAGES, neighbourStage, stageLabel } from "./stages";

describe("stages", () => {
  it("are the six of the pipeline, in board order, each with Thai", () => {
    expect(STAGES).toEqual(["triage", "preparing", "submitted", "won", "lost", "abandoned"]);
    for (const s of STAGES) expect(stageLabel(s)).toMatch(/[\u0E00-\u0E7F]/);
    expect(new Set(STAGES.map(stageLabel)).size).toBe(6);
    expect(stageLabel("other")).toBe("other");
  });
  it("neighbours stop at either end", () => {
    expect(neighbourStage("triage", -1)).toBeNull();
    expect(neighbourStage("triage", 1)).toBe("preparing");
    expect(neighbourStage("abandoned", 1)).toBeNull();
  });
});

describe("roles", () => {
  it("viewers only read; members write; owners and admins manage", () => {
    expect([canWrite("owner"), canWrite("admin"), canWrite("member"), canWrite("viewer")]).toEqual([true, true, true, false]);
    expect([canManage("owner"), canManage("admin"), canManage("member"), canManage("viewer")]).toEqual([true, true, false, false]);
  });
  it("admins hand out up to admin and never touch an owner", () => {
    expect(assignableRoles("owner")).toContain("owner");
    expect(assignableRoles("admin")).toEqual(["admin", "member", "viewer"]);
    expect(assignableRoles("member")).toEqual([]);
    expect(canManageMember("admin", "owner")).toBe(false);
    expect(canManageMember("admin", "viewer")).toBe(true);
    expect(canManageMember("member", "viewer")).toBe(false);
    expect(canManageMember("owner", "owner")).toBe(true);
  });
});

describe("money: exact satang", () => {
  it("parses typed baht without a float", () => {
    expect(parseSatang("1,234,567.89")).toBe(123456789n);
    expect(parseSatang("๑๒๓.๕")).toBe(12350n);
    expect(parseSatang("1500 บาท")).toBe(150000n);
    expect(parseSatang("0.1")).toBe(10n);
    // 2^53 + 1 satang survives (a float would not).
    expect(parseSatang("90071992547409.93")).toBe(9007199254740993n);
    expect(parseSatang("")).toBeNull();
    expect(parseSatang("1.234")).toBeNull();
    expect(parseSatang("-5")).toBeNull();
    expect(parseSatang("abc")).toBeNull();
  });
  it("formats satang with separators and two decimals", () => {
    expect(formatSatang(123456789n)).toBe("1,234,567.89");
    expect(formatSatang(5n)).toBe("0.05");
    expect(formatSatangBaht(100n)).toBe("1.00 บาท");
  });
});

describe("mentions", () => {
  const members = [
    { username: "malee", name: "มาลี ประมูลเก่ง" },
    { username: "manop", name: "มานพ ตีราคา" },
    { username: "somchai", name: "สมชาย ใจดี" },
  ];
  it("finds the @word at the caret, not an e-mail address", () => {
    expect(mentionAt("hi @ma", 6)).toEqual({ start: 3, end: 6, query: "ma" });
    expect(mentionAt("@", 1)).toEqual({ start: 0, end: 1, query: "" });
    expect(mentionAt("mail a@b.co", 11)).toBeNull();
    expect(mentionAt("no mention", 5)).toBeNull();
    expect(mentionAt("(@so", 4)?.query).toBe("so");
  });
  it("candidates: username prefix first, then names, at most the limit", () => {
    expect(mentionCandidates(members, "ma").map((m) => m.username)).toEqual(["malee", "manop"]);
    expect(mentionCandidates(members, "สม").map((m) => m.username)).toEqual(["somchai"]);
    expect(mentionCandidates(members, "ตี").map((m) => m.username)).toEqual(["manop"]);
    expect(mentionCandidates(members, "", 2)).toHaveLength(2);
    expect(mentionCandidates(members, "zz")).toEqual([]);
  });
  it("puts the username in with one space and the caret after it", () => {
    const text = "ช่วยดู @ma ด้วย";
    const q = mentionAt(text, 10)!;
    const r = insertMention(text, q, "malee");
    expect(r.text).toBe("ช่วยดู @malee ด้วย");
    expect(r.text.slice(0, r.caret)).toBe("ช่วยดู @malee ");
    const end = insertMention("@so", mentionAt("@so", 3)!, "somchai");
    expect(end).toEqual({ text: "@somchai ", caret: 9 });
  });
  it("reads the usernames a text mentions, once each", () => {
    expect(mentionedUsernames("@Malee ดูราคา @manop. และ @malee อีกที a@b.c")).toEqual(["malee", "manop"]);
  });
});

describe("board", () => {
  const items = [
    { projectId: "69120000001", stage: "triage" },
    { projectId: "69120000002", stage: "won" },
    { projectId: "69120000003", stage: "mystery" },
  ];
  it("groups by stage and leaves out what it does not know", () => {
    const g = byStage(items);
    expect(g.triage.map((i) => i.projectId)).toEqual(["69120000001"]);
    expect(g.won).toHaveLength(1);
    expect(Object.values(g).flat()).toHaveLength(2);
  });
  it("a drop on another column is a move; on its own column or nowhere it is none", () => {
    expect(dropMove(items, cardId("69120000001"), columnId("preparing"))).toEqual({ projectId: "69120000001", from: "triage", to: "preparing" });
    expect(dropMove(items, cardId("69120000001"), columnId("triage"))).toBeNull();
    expect(dropMove(items, cardId("69120000001"), null)).toBeNull();
    // Over another card: that card's stage.
    expect(dropMove(items, cardId("69120000001"), cardId("69120000002"))?.to).toBe("won");
    expect(dropMove(items, "junk", columnId("won"))).toBeNull();
  });
  it("moves one item in the optimistic copy only", () => {
    const next = withStage(items, "69120000001", "submitted");
    expect(next[0].stage).toBe("submitted");
    expect(items[0].stage).toBe("triage");
  });
});

describe("history", () => {
  const nameOf = (id: string) => ({ u1: "มาลี", u2: "มานพ" })[id] ?? "";
  it("names who changed it: you, a member, a key, someone who left", () => {
    expect(actorName("u1", nameOf, "u2")).toBe("มาลี");
    expect(actorName("u2", nameOf, "u2")).toBe(th.teams.you);
    expect(actorName("api-key:k1", nameOf, "u2")).toBe(th.teams.keysTitle);
    expect(actorName("gone", nameOf, "u2")).toBe(th.teams.someone);
  });
  it("shows values as the team reads them", () => {
    expect(fieldValue("stage", "won", nameOf)).toBe(th.teams.stages.won);
    expect(fieldValue("owner_user_id", "u2", nameOf)).toBe("มานพ");
    expect(fieldValue("due_date", "2026-12-15", nameOf)).toBe("15 ธ.ค. 2569");
    expect(fieldValue("bid_price", "1234567.8", nameOf)).toBe("1,234,567.80 บาท");
    expect(fieldValue("note", "", nameOf)).toBe(th.teams.historyEmptyValue);
    expect(fieldLabel("item", "triage")).toBe(th.teams.historyFields.created);
    expect(fieldLabel("item", "")).toBe(th.teams.historyFields.deleted);
    expect(fieldLabel("bid_price", "1")).toBe(th.teams.historyFields.bid_price);
  });
});
