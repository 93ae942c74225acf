import fs from "node:fs";
import path from "node:path";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PRODUCT, th } from "@/i18n/th";
import { PageSkeleton } from "./skeleton";

/** The markup inside index.html's #root: what the browser paints before any script runs. */
function indexShell(): string {
  const html = fs.readFileSync(path.resolve(__dirname, "../../../index.html"), "utf8");
  const m = /<div id="root">([\s\S]*?)<\/div>\s*<!-- \/root -->/.exec(html);
  if (!m) throw new Error("index.html: no <div id=\"root\">…</div><!-- /root -->");
  return m[1].replace(/>\s+</g, "><").trim();
}

describe("index.html shell", () => {
  it("is the start-up skeleton, brand included, so React's first render changes nothing on screen", () => {
    const shell = indexShell();
    expect(shell).toBe(renderToStaticMarkup(<PageSkeleton />));
    expect(shell).toContain(`<strong>${PRODUCT}</strong>`);
    expect(shell).toContain(th.nav.tagline);
  });
});
