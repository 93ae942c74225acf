// Starts the real BidRadar stack (the lead's launcher, ./stack/cmd/stack) for
// the browser tests: a per-run database, the SMTP catcher and the fake LINE
// server wired in, bound to 127.0.0.1 only; stopped and cleaned up at the end.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const frontendDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
export const repoRoot = path.resolve(frontendDir, "..");

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function answers(port, host = "127.0.0.1") {
  return new Promise((resolve) => {
    const c = net.connect({ port, host });
    c.setTimeout(500);
    c.once("connect", () => (c.destroy(), resolve(true)));
    c.once("error", () => resolve(false));
    c.once("timeout", () => (c.destroy(), resolve(false)));
  });
}

function newestMtime(p) {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = st.mtimeMs;
  for (const e of fs.readdirSync(p)) m = Math.max(m, newestMtime(path.join(p, e)));
  return m;
}

/** Build frontend/dist when it is missing or older than the sources. */
export function ensureFrontendBuilt(log) {
  if (process.env.E2E_WEB_DIR) return; // a prebuilt dist given explicitly
  const index = path.join(frontendDir, "dist/index.html");
  const sources = ["src", "public", "index.html", "vite.config.ts", "package.json"].map((p) => path.join(frontendDir, p)).filter((p) => fs.existsSync(p));
  const newest = Math.max(...sources.map(newestMtime));
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= newest && !process.env.E2E_REBUILD) return;
  log("building frontend (vite build)…");
  const r = spawnSync(process.execPath, [path.join(frontendDir, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn"], { cwd: frontendDir, stdio: "inherit" });
  if (r.status !== 0) throw new Error("vite build failed");
}

function psqlBin() {
  for (const p of ["/usr/lib/postgresql/15/bin/psql", "/usr/bin/psql"]) if (fs.existsSync(p)) return p;
  return "psql";
}

/**
 * Start the stack. Returns { url, stop }. `env` adds SMTP/LINE settings.
 */
export async function startStack({ env, artifactsDir, log }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bidradar-e2e-"));
  const bin = path.join(tmp, "bidradar-stack");
  log("building the stack (go build ./stack/cmd/stack)…");
  const b = spawnSync("go", ["build", "-o", bin, "./stack/cmd/stack"], { cwd: repoRoot, stdio: "inherit" });
  if (b.status !== 0) throw new Error("go build ./stack/cmd/stack failed");

  // A database of our own on the local server; else the launcher's private cluster.
  let dbName = null;
  let databaseUrl = process.env.E2E_DATABASE_URL ?? "";
  let cwd = tmp; // the launcher's .data (embedded NATS) goes to the temp dir
  if (!databaseUrl) {
    if (await answers(5432)) {
      dbName = `bidradar_e2e_${Date.now()}_${process.pid}`;
      databaseUrl = `postgres://postgres@127.0.0.1:5432/${dbName}?sslmode=disable`;
    } else {
      cwd = repoRoot; // the launcher finds scripts/ensure-postgres.sh from here
      log("no PostgreSQL on 127.0.0.1:5432: the launcher starts its private cluster");
    }
  }

  const port = Number(env.HTTP_PORT);
  const url = `http://127.0.0.1:${port}`;
  const logPath = path.join(artifactsDir, "stack.log");
  const out = fs.openSync(logPath, "w");
  const childEnv = {
    ...process.env,
    HTTP_ADDR: `127.0.0.1:${port}`,
    WEB_DIR: process.env.E2E_WEB_DIR ? path.resolve(process.env.E2E_WEB_DIR) : path.join(frontendDir, "dist"),
    DEMO_DATA: "0",
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
    ...env,
  };
  delete childEnv.HTTP_PORT;
  if (databaseUrl) childEnv.DATABASE_URL = databaseUrl;
  else delete childEnv.DATABASE_URL;
  delete childEnv.NATS_URL; // embedded NATS in the launcher

  const child = spawn(bin, [], { cwd, env: childEnv, stdio: ["ignore", out, out] });
  let exited = null;
  child.once("exit", (code, sig) => (exited = { code, sig }));

  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited) throw new Error(`stack exited (${JSON.stringify(exited)}); see ${logPath}:\n${fs.readFileSync(logPath, "utf8").slice(-3000)}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.status === 200) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`stack not ready on ${url} after 120 s; see ${logPath}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  log(`stack ready on ${url}${dbName ? ` (database ${dbName})` : ""}`);

  async function stop() {
    if (!exited) {
      child.kill("SIGTERM");
      const t0 = Date.now();
      while (!exited && Date.now() - t0 < 15_000) await new Promise((r) => setTimeout(r, 100));
      if (!exited) child.kill("SIGKILL");
    }
    fs.closeSync(out);
    if (dbName && !process.env.E2E_KEEP_DB) {
      const r = spawnSync(psqlBin(), ["-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-qc", `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`], { encoding: "utf8" });
      if (r.status !== 0) log(`could not drop ${dbName}: ${r.stderr || r.error}`);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return { url, stop, databaseUrl };
}
