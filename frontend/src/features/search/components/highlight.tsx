import { highlightSegments } from "../lib/highlight";

/** The text with the matched keywords marked (normalisation-aware, whole graphemes). */
export function Highlight({ text, keywords }: { text: string; keywords: readonly string[] }) {
  const segs = highlightSegments(text, keywords);
  return (
    <>
      {segs.map((s, i) =>
        s.hit ? (
          <mark key={i} className="hl">
            {s.text}
          </mark>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </>
  );
}
