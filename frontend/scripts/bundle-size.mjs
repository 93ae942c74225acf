#!/usr/bin/env node
// Initial JavaScript budget: gzip every script the first page load fetches —
// the entry chunks and modulepreloads referenced by dist/index.html, plus
// their static imports — and fail above the budget (200 KB gzip).
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const dist = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../dist");
const BUDGET_KB = Number(process.env.BUNDLE_BUDGET_KB ?? 200);
const indexHtml = path.join(dist, "index.html");
if (!fs.existsSync(indexHtml)) {
  console.error("dist/index.html missing: run `npm run build` first");
  process.exit(2);
}
const html = fs.readFileSync(indexHtml, "utf8");
const refs = new Set();
for (const m of html.matchAll(/<script[^>]+src="([^"]+\.js)"/g)) refs.add(m[1]);
for (const m of html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g)) refs.add(m[1]);

// Follow static imports (`import ... from "./x.js"`, `import "./x.js"`), not dynamic import().
const seen = new Set();
const queue = [...refs].map((r) => path.join(dist, r.replace(/^\//, "")));
while (queue.length) {
  const file = queue.shift();
  if (seen.has(file) || !fs.existsSync(file)) continue;
  seen.add(file);
  const src = fs.readFileSync(file, "utf8");
  for (const m of src.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w*{}\s,$]+from\s*)?["']([^"']+\.js)["']/g)) {
    queue.push(path.resolve(path.dirname(file), m[1]));
  }
}

let raw = 0;
let gz = 0;
const rows = [];
for (const f of seen) {
  const buf = fs.readFileSync(f);
  const g = zlib.gzipSync(buf, { level: 9 }).length;
  raw += buf.length;
  gz += g;
  rows.push([path.relative(dist, f), buf.length, g]);
}
rows.sort((a, b) => b[2] - a[2]);
for (const [f, r, g] of rows) console.log(`  ${f.padEnd(48)} ${(r / 1024).toFixed(1).padStart(8)} KB  ${(g / 1024).toFixed(1).padStart(7)} KB gzip`);
const kb = gz / 1024;
console.log(`initial JS: ${kb.toFixed(1)} KB gzip (budget ${BUDGET_KB} KB; ${(raw / 1024).toFixed(1)} KB raw, ${seen.size} files)`);
if (kb > BUDGET_KB) {
  console.error(`initial JS is over budget by ${(kb - BUDGET_KB).toFixed(1)} KB`);
  process.exit(1);
}
