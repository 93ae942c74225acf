/**
 * Highlighting that agrees with the server's matching (docs/product.md#search-semantics): keywords
 * match on the normalised text (NFC, ํา → ำ, Thai digits → ASCII, zero-width
 * characters removed, white space collapsed, Latin lower-cased), so we
 * normalise the title with an index map back to the original characters, find
 * the keywords there, and widen every hit to whole grapheme clusters so that a
 * Thai vowel or tone mark is never cut from its consonant.
 */

const NIKHAHIT = "\u0E4D";
const SARA_AA = "\u0E32";
const SARA_AM = "\u0E33";
const ZERO_WIDTH = new Set(["\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF", "\u00AD", "\u200E", "\u200F"]);
const isTone = (c: string) => c >= "\u0E48" && c <= "\u0E4B";
const isSpace = (c: string) => /\s/u.test(c) || c === "\u180E" || (c.length === 1 && (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f));

export type NormalizedText = {
  /** The normalised text. */
  text: string;
  /** For each UTF-16 unit of `text`, the original range [start, end) it came from. */
  starts: number[];
  ends: number[];
};

/** Normalise `original` (already NFC) keeping, per output unit, where it came from. */
export function normalizeWithMap(original: string): NormalizedText {
  let text = "";
  const starts: number[] = [];
  const ends: number[] = [];
  const emit = (s: string, from: number, to: number) => {
    for (let k = 0; k < s.length; k++) {
      starts.push(from);
      ends.push(to);
    }
    text += s;
  };
  let pendingSpace: [number, number] | null = null;
  let i = 0;
  while (i < original.length) {
    const cp = original.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const next = i + ch.length;
    if (ZERO_WIDTH.has(ch)) {
      i = next;
      continue;
    }
    if (isSpace(ch)) {
      pendingSpace = pendingSpace ? [pendingSpace[0], next] : [i, next];
      i = next;
      continue;
    }
    if (pendingSpace) {
      if (text.length > 0) emit(" ", pendingSpace[0], pendingSpace[1]);
      pendingSpace = null;
    }
    if (ch === NIKHAHIT) {
      // ํา → ำ, and ํ + tone + า → tone + ำ (as the server folds them).
      if (original[next] === SARA_AA) {
        emit(SARA_AM, i, next + 1);
        i = next + 1;
        continue;
      }
      if (isTone(original[next] ?? "") && original[next + 1] === SARA_AA) {
        emit(original[next] + SARA_AM, i, next + 2);
        i = next + 2;
        continue;
      }
    }
    if (cp >= 0x0e50 && cp <= 0x0e59) emit(String(cp - 0x0e50), i, next);
    else emit(/\p{Script=Latin}/u.test(ch) ? ch.toLowerCase() : ch, i, next);
    i = next;
  }
  return { text, starts, ends };
}

/** The search form of a keyword (the same folding as the server's). */
export function normalizeKeyword(k: string): string {
  return normalizeWithMap(k.normalize("NFC")).text;
}

type Segmenter = { segment(s: string): Iterable<{ index: number }> };

function graphemeBoundaries(s: string): Set<number> {
  const out = new Set<number>([0, s.length]);
  const Seg = (Intl as unknown as { Segmenter?: new (l: string, o: { granularity: string }) => Segmenter }).Segmenter;
  if (Seg) {
    for (const g of new Seg("th", { granularity: "grapheme" }).segment(s)) out.add(g.index);
    return out;
  }
  // Fallback: a boundary before everything except Thai combining marks (and SARA AM).
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const combining = c === 0x0e31 || (c >= 0x0e33 && c <= 0x0e3a) || (c >= 0x0e47 && c <= 0x0e4e);
    const lowSurrogate = c >= 0xdc00 && c <= 0xdfff;
    if (!combining && !lowSurrogate) out.add(i);
  }
  return out;
}

export type Range = [start: number, end: number];

/**
 * Ranges of `text` to highlight for `keywords` (raw or already normalised),
 * widened to grapheme clusters, sorted and merged.
 */
export function highlightRanges(text: string, keywords: readonly string[]): Range[] {
  const display = text.normalize("NFC");
  const norm = normalizeWithMap(display);
  const needles = [...new Set(keywords.map(normalizeKeyword).filter((k) => k.length > 0))];
  if (needles.length === 0 || norm.text.length === 0) return [];
  const raw: Range[] = [];
  for (const n of needles) {
    let from = 0;
    for (;;) {
      const at = norm.text.indexOf(n, from);
      if (at < 0) break;
      raw.push([norm.starts[at], norm.ends[at + n.length - 1]]);
      from = at + 1;
    }
  }
  if (raw.length === 0) return [];
  const bounds = [...graphemeBoundaries(display)].sort((a, b) => a - b);
  const snapStart = (x: number) => {
    let best = 0;
    for (const b of bounds) if (b <= x) best = b;
    return best;
  };
  const snapEnd = (x: number) => bounds.find((b) => b >= x) ?? display.length;
  const snapped = raw.map(([s, e]) => [snapStart(s), snapEnd(e)] as Range).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: Range[] = [];
  for (const r of snapped) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

export type Segment = { text: string; hit: boolean };

/** The text cut into plain and highlighted pieces (the pieces join back to the NFC text). */
export function highlightSegments(text: string, keywords: readonly string[]): Segment[] {
  const display = text.normalize("NFC");
  const ranges = highlightRanges(display, keywords);
  const out: Segment[] = [];
  let pos = 0;
  for (const [s, e] of ranges) {
    if (s > pos) out.push({ text: display.slice(pos, s), hit: false });
    out.push({ text: display.slice(s, e), hit: true });
    pos = e;
  }
  if (pos < display.length) out.push({ text: display.slice(pos), hit: false });
  return out;
}
