// A small test harness over playwright-core: fresh browser context per test,
// console-error tracking, screenshots as artifacts, REST helpers for set-up.
import fs from "node:fs";
import path from "node:path";
import assert from "node:assert/strict";

export { assert };

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let seq = 0;
/** Unique, valid usernames and e-mails per run. */
export function uniq(prefix, domain = "example.co.th") {
  const id = `${Date.now().toString(36)}${(seq++).toString(36)}`;
  return { username: `${prefix}_${id}`, email: `${prefix}.${id}@${domain}` };
}

/**
 * The auth service's clock in the stack under test (STACK_TEST_CLOCK_ADDR):
 * set("61s") makes it run 61 s ahead, set("0s") brings it back. Tests cross
 * the resend interval this way instead of waiting; the runner resets it
 * after every test.
 */
export function serverClockAt(controlURL) {
  return {
    async set(offset) {
      const r = await fetch(`${controlURL}/?offset=${encodeURIComponent(offset)}`, { method: "PUT" });
      if (r.status !== 200) throw new Error(`server clock ${offset}: ${r.status} ${await r.text()}`);
    },
  };
}

export function createContext({ browser, baseURL, artifactsDir, mail, line, serverClock }) {
  const pages = [];
  /** @type {Array<{text:string, allowed:RegExp[]}>} */
  const problems = [];

  /** touch: a phone (touch events, mobile viewport meta), for tap(). */
  async function newPage({ viewport = { width: 1280, height: 860 }, allowConsole = [], touch = false } = {}) {
    const context = await browser.newContext({ baseURL, viewport, locale: "th-TH", timezoneId: "Asia/Bangkok", hasTouch: touch, isMobile: touch });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("console", (m) => {
      if (m.type() === "error") problems.push({ text: `console: ${m.text()}`, allowed: allowConsole });
    });
    page.on("pageerror", (e) => problems.push({ text: `pageerror: ${e.message}`, allowed: [] }));
    pages.push(context);
    return page;
  }

  async function shot(page, name, opts = {}) {
    fs.mkdirSync(path.join(artifactsDir, "screenshots"), { recursive: true });
    const file = path.join(artifactsDir, "screenshots", `${name}.png`);
    await page.waitForTimeout(250); // let toasts and transitions settle
    await page.screenshot({ path: file, fullPage: opts.fullPage ?? false });
    return file;
  }

  async function api(method, p, body, headers = {}) {
    const r = await fetch(`${baseURL}/app/backend/api/v1${p}`, {
      method,
      headers: { "content-type": "application/json", "x-requested-with": "BidRadar", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: r.status, json, text };
  }

  /** A verified account created through the documented REST API. */
  async function createUser(prefix, { name = "ทดสอบ ระบบ", password = "ประมูลงานรัฐ-2569", twoStep = false, domain } = {}) {
    const u = { ...uniq(prefix, domain), name, password };
    const before = mail.countFor(u.email);
    const reg = await api("POST", "/register", { username: u.username, email: u.email, password, name });
    assert.equal(reg.status, 200, `register: ${reg.text}`);
    const code = await mail.codeFor(u.email, { after: before });
    const ver = await api("POST", `/verify-otp/?email=${encodeURIComponent(u.email)}&otp=${code}`);
    assert.equal(ver.status, 200, `verify: ${ver.text}`);
    if (twoStep) {
      const login = await api("POST", "/login", { username: u.username, password });
      assert.equal(login.status, 200, `login: ${login.text}`);
      const on = await api("PUT", "/users/me/security/two-step", { enabled: true }, { authorization: `Bearer ${login.json.access_token}` });
      assert.equal(on.status, 200, `two-step on: ${on.text}`);
    }
    return u;
  }

  /** The problems of this test not covered by its allowed patterns. */
  function takeProblems() {
    const bad = problems.filter((p) => !p.allowed.some((re) => re.test(p.text))).map((p) => p.text);
    problems.length = 0;
    return bad;
  }

  async function closeAll() {
    for (const c of pages.splice(0)) await c.close().catch(() => {});
  }

  return { baseURL, mail, line, serverClock, newPage, shot, api, createUser, takeProblems, closeAll, artifactsDir };
}

// ---- small assertions over Playwright locators ----

export async function visible(locator, timeout = 15_000) {
  await locator.first().waitFor({ state: "visible", timeout });
  return locator.first();
}

export async function hidden(locator, timeout = 15_000) {
  await locator.first().waitFor({ state: "hidden", timeout });
}

export async function urlIs(page, pathname, timeout = 15_000) {
  await page.waitForURL((u) => u.pathname === pathname, { timeout });
}

export async function toast(page, text, timeout = 15_000) {
  return visible(page.getByTestId("toast").filter({ hasText: text }), timeout);
}

/** Paste a code into the first OTP box the way a browser does (ClipboardEvent with DataTransfer). */
export async function pasteCode(page, code) {
  await page.getByTestId("otp-0").evaluate((el, c) => {
    const dt = new DataTransfer();
    dt.setData("text/plain", c);
    el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
  }, code);
}

/** Type a code key by key, starting in the first box (auto-advance does the rest). */
export async function typeCode(page, code) {
  await page.getByTestId("otp-0").click();
  await page.keyboard.type(code, { delay: 40 });
}

export async function login(page, username, password) {
  await page.goto("/login");
  await page.getByLabel("ชื่อผู้ใช้หรืออีเมล").fill(username);
  await page.getByLabel("รหัสผ่าน", { exact: true }).fill(password);
  await page.getByRole("button", { name: "เข้าสู่ระบบ", exact: true }).click();
}
