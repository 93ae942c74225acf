import { describe, expect, it } from "vitest";
import { highlightRanges, highlightSegments, normalizeKeyword, normalizeWithMap } from "./highlight";

const hits = (text: string, kws: string[]) => highlightSegments(text, kws).filter((s) => s.hit).map((s) => s.text);

describe("normalisation (the server's folding)", () => {
  it("folds Thai digits, ํา, zero-width characters, spaces and Latin case", () => {
    expect(normalizeKeyword("ปีงบประมาณ ๒๕๖๙")).toBe("ปีงบประมาณ 2569");
    expect(normalizeKeyword("จ\u0E4D\u0E32นวน")).toBe("จำนวน");
    expect(normalizeKeyword("น\u0E4D\u0E49\u0E32")).toBe("น\u0E49\u0E33"); // ํ + tone + า → tone + ำ
    expect(normalizeKeyword("คอม\u200Bพิว")).toBe("คอมพิว");
    expect(normalizeKeyword("  e-Bidding \t  ระบบ ")).toBe("e-bidding ระบบ");
  });

  it("keeps a map from every normalised character to its original range", () => {
    const n = normalizeWithMap("ก  ๑ข");
    expect(n.text).toBe("ก 1ข");
    expect(n.starts).toEqual([0, 1, 3, 4]);
    expect(n.ends).toEqual([1, 3, 4, 5]);
  });
});

describe("highlighting matched keywords", () => {
  it("marks an ASCII keyword inside Thai-digit text (server sent the normalised form)", () => {
    expect(hits("ประกวดราคาซื้อโดรน ประจำปีงบประมาณ ๒๕๖๙ ด้วยวิธี", ["2569"])).toEqual(["๒๕๖๙"]);
    expect(hits("ปีงบประมาณ ๒๕๖๙", ["ปีงบประมาณ 2569"])).toEqual(["ปีงบประมาณ ๒๕๖๙"]);
  });

  it("marks a Thai-digit keyword in ASCII text", () => {
    expect(hits("จ้างเหมา จำนวน 12 เดือน", ["๑๒"])).toEqual(["12"]);
  });

  it("matches ํา written as two characters against ำ and the other way round", () => {
    expect(hits("จ\u0E4D\u0E32นวน ๒ ชุด", ["จำนวน"])).toEqual(["จ\u0E4D\u0E32นวน"]);
    expect(hits("น้ำประปา", ["น\u0E4D\u0E49\u0E32"])).toEqual(["น้ำ"]);
  });

  it("finds keywords inside words (Ctrl-F behaviour) and ignores Latin case", () => {
    expect(hits("ซื้อครุภัณฑ์คอมพิวเตอร์", ["คอมพิว"])).toEqual(["คอมพิว"]);
    expect(hits("ประกวดราคาอิเล็กทรอนิกส์ (e-Bidding)", ["e-bidding"])).toEqual(["e-Bidding"]);
  });

  it("never breaks a Thai grapheme: marks stay with their consonant", () => {
    // "ที" matches "ที" in "ที่": the tone mark ่ belongs to the same cluster.
    expect(hits("ที่ดิน", ["ที"])).toEqual(["ที่"]);
    // "ก" in "กำ": SARA AM joins the cluster.
    expect(hits("กำแพง", ["ก"])).toEqual(["กำ"]);
    // the joined pieces give back the text
    const segs = highlightSegments("สร้างถนนที่ดิน", ["ถนนที"]);
    expect(segs.map((s) => s.text).join("")).toBe("สร้างถนนที่ดิน");
    expect(segs.filter((s) => s.hit).map((s) => s.text)).toEqual(["ถนนที่"]);
  });

  it("merges overlapping hits and spans collapsed white space", () => {
    expect(highlightRanges("ถนนคอนกรีต", ["ถนน", "นคอน"])).toEqual([[0, 6]]);
    expect(hits("ถนน   คอนกรีต", ["ถนน คอน"])).toEqual(["ถนน   คอน"]);
  });

  it("no keywords or no match leaves the text alone", () => {
    expect(highlightSegments("ถนน", [])).toEqual([{ text: "ถนน", hit: false }]);
    expect(hits("ถนน", ["สะพาน"])).toEqual([]);
  });
});
