#!/usr/bin/env node
// End-to-end runner: builds the frontend if needed, starts an SMTP catcher, a
// fake LINE server and the real stack, drives Debian's Chromium through
// playwright-core, saves screenshots under e2e-artifacts/, stops everything.
//
//   npm run test:e2e              every spec
//   npm run test:e2e -- line      specs/tests whose name contains "line" (several filters: any of them)
//   E2E_ARTIFACTS_DIR=...          where screenshots and the stack log go (default e2e-artifacts/)
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { spawnSync } from "node:child_process";
import { chromium } from "playwright-core";
import { startMailCatcher } from "./support/mail.mjs";
import { startFakeLine } from "./support/fake-line.mjs";
import { ensureFrontendBuilt, freePort, frontendDir, startStack } from "./support/stack.mjs";
import { CHROMIUM, CHROMIUM_ARGS, createContext, serverClockAt } from "./support/harness.mjs";

const filters = process.argv.slice(2).map((f) => f.toLowerCase());
const artifactsDir = path.resolve(process.env.E2E_ARTIFACTS_DIR ?? path.join(frontendDir, "e2e-artifacts"));
const log = (m) => console.log(`[e2e] ${m}`);
const TEST_TIMEOUT_MS = Number(process.env.E2E_TEST_TIMEOUT_MS ?? 150_000);

function ensureBrowser() {
  if (fs.existsSync(CHROMIUM)) return;
  log(`${CHROMIUM} missing: installing Debian chromium and fonts-thai-tlwg`);
  const r = spawnSync("bash", [path.join(frontendDir, "scripts/ensure-browser.sh")], { stdio: "inherit" });
  if (r.status !== 0 || !fs.existsSync(CHROMIUM)) throw new Error("no Chromium; run frontend/scripts/ensure-browser.sh as root");
}

async function main() {
  fs.rmSync(artifactsDir, { recursive: true, force: true });
  fs.mkdirSync(artifactsDir, { recursive: true });
  ensureBrowser();
  ensureFrontendBuilt(log);

  const cleanups = [];
  let passed = 0;
  const failures = [];
  try {
    const mail = await startMailCatcher();
    cleanups.push(() => mail.close());
    const channelId = "1657000001";
    const channelSecret = crypto.randomBytes(16).toString("hex");
    const line = await startFakeLine({ channelId, channelSecret });
    cleanups.push(() => line.close());
    const port = await freePort();
    const clockPort = await freePort();
    const stack = await startStack({
      artifactsDir,
      log,
      env: {
        HTTP_PORT: String(port),
        SMTP_HOST: "127.0.0.1",
        SMTP_PORT: String(mail.port),
        SMTP_TLS: "none",
        MAIL_FROM: "BidRadar <no-reply@bidradar.test>",
        LINE_CHANNEL_ID: channelId,
        LINE_CHANNEL_SECRET: channelSecret,
        LINE_REDIRECT_URI: `http://127.0.0.1:${port}/auth/line/callback`,
        LINE_AUTHORIZE_URL: line.authorizeUrl,
        LINE_TOKEN_URL: line.tokenUrl,
        ADMIN_EMAILS: "@ops.bidradar.test",
        // The notifications spec sets a webhook on the loopback.
        WEBHOOK_ALLOW_PRIVATE: "true",
        SUPPORT_EMAIL: "support@bidradar.test",
        // The auth service's clock, moved by tests instead of waiting.
        STACK_TEST_CLOCK_ADDR: `127.0.0.1:${clockPort}`,
      },
    });
    cleanups.push(() => stack.stop());

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    cleanups.push(() => browser.close());
    log(`Chromium ${browser.version()}`);
    const serverClock = serverClockAt(`http://127.0.0.1:${clockPort}`);
    const ctx = createContext({ browser, baseURL: stack.url, artifactsDir, mail, line, serverClock });

    const specDir = path.join(frontendDir, "e2e/specs");
    for (const file of fs.readdirSync(specDir).filter((f) => f.endsWith(".spec.mjs")).sort()) {
      const { default: tests } = await import(path.join(specDir, file));
      for (const t of tests) {
        const name = `${file.replace(".spec.mjs", "")} › ${t.name}`;
        if (filters.length && !filters.some((f) => name.toLowerCase().includes(f))) continue;
        const t0 = Date.now();
        try {
          let timer;
          await Promise.race([
            t.fn(ctx),
            new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`timed out after ${TEST_TIMEOUT_MS} ms`)), TEST_TIMEOUT_MS))),
          ]).finally(() => clearTimeout(timer));
          const problems = ctx.takeProblems();
          if (problems.length) throw new Error(`console errors:\n  ${problems.join("\n  ")}`);
          passed++;
          log(`✓ ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
        } catch (e) {
          ctx.takeProblems();
          failures.push({ name, error: e });
          log(`✗ ${name}\n    ${String(e?.stack ?? e).split("\n").slice(0, 8).join("\n    ")}`);
          // A screenshot of every open page at the failure.
          for (const [i, c] of browser.contexts().entries()) {
            for (const [j, p] of c.pages().entries()) {
              await p.screenshot({ path: path.join(artifactsDir, `FAILED-${file}-${t.name.replace(/\W+/g, "_")}-${i}-${j}.png`) }).catch(() => {});
            }
          }
        } finally {
          await serverClock.set("0s").catch((e) => log(`resetting the server clock: ${e}`));
          await ctx.closeAll();
        }
      }
    }
  } catch (e) {
    failures.push({ name: "setup", error: e });
    log(`✗ setup: ${e?.stack ?? e}`);
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch((e) => log(`cleanup: ${e}`));
  }
  console.log(`\ne2e: ${passed} passed, ${failures.length} failed (screenshots in ${path.relative(process.cwd(), artifactsDir)}/screenshots)`);
  process.exitCode = failures.length ? 1 : 0;
}

await main();
