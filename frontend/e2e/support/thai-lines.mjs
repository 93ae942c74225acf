// How Thai text wraps in the browser. Thai has no spaces between words, so a
// line may only break where a word ends: Chromium's line breaker finds them
// with ICU's Thai dictionary (the one Intl.Segmenter uses), which lacks some
// words (loanwords like แพ็กเกจ, พร้อมเพย์), and CSS such as
// `word-break: break-all` or `overflow-wrap: anywhere` breaks inside words.

/**
 * Where the lines of the element's Thai text break badly, as "…before|after…"
 * strings ([] when none): a line starting inside a dictionary word (not at an
 * Intl.Segmenter word boundary), inside one of keepWhole's words, or with a
 * vowel or tone mark torn from its consonant. Breaks in other scripts (a
 * long e-mail address that cannot fit), and between elements, are not judged.
 */
export async function midWordBreaks(locator, keepWhole = []) {
  return locator.evaluate((el, keep) => {
    const words = new Intl.Segmenter("th", { granularity: "word" });
    const graphemes = new Intl.Segmenter("th", { granularity: "grapheme" });
    const thai = /\p{Script=Thai}/u;
    const bad = [];
    const range = document.createRange();
    let lastTop = null;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const s = node.data;
      const bounds = new Set([...words.segment(s)].map((x) => x.index));
      const inside = new Set();
      for (const w of keep) {
        for (let i = s.indexOf(w); i >= 0; i = s.indexOf(w, i + 1)) for (let j = i + 1; j < i + w.length; j++) inside.add(j);
      }
      for (const g of graphemes.segment(s)) {
        if (/^\s+$/u.test(g.segment)) continue;
        range.setStart(node, g.index);
        range.setEnd(node, g.index + g.segment.length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0 || r.height > 0);
        if (rects.length === 0) continue;
        const at = `${s.slice(Math.max(0, g.index - 8), g.index)}|${s.slice(g.index, g.index + 8)}`;
        if (new Set(rects.map((r) => Math.round(r.top))).size > 1) bad.push(`torn cluster ${at}`);
        const top = Math.round(rects[0].top);
        // Judged: a line starting between two Thai characters of one text node.
        const judged = g.index > 0 && thai.test(g.segment) && thai.test(s[g.index - 1]);
        if (lastTop !== null && top > lastTop + 2 && judged && (!bounds.has(g.index) || inside.has(g.index))) bad.push(at);
        lastTop = top;
      }
    }
    return bad;
  }, keepWhole);
}
