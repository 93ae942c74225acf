import { assert, hidden, pasteCode, toast, typeCode, uniq, urlIs, visible, login } from "../support/harness.mjs";

const PASSWORD = "ประมูลงานรัฐ-2569";

async function signUp(page, u, name) {
  await page.goto("/signup");
  await page.getByLabel("ชื่อ-นามสกุล").fill(name);
  await page.getByLabel("ชื่อผู้ใช้", { exact: true }).fill(u.username);
  await page.getByLabel("อีเมล").fill(u.email);
  await page.getByLabel("รหัสผ่าน", { exact: true }).fill(PASSWORD);
  await page.getByLabel("ยืนยันรหัสผ่าน").fill(PASSWORD);
  await page.getByRole("button", { name: "สมัครสมาชิก", exact: true }).click();
  await urlIs(page, "/verify-registration");
  await visible(page.getByRole("heading", { name: "ยืนยันอีเมลของคุณ" }));
}

/**
 * After verification the app goes to / with a user, or to /login without one
 * (docs/product.md#verify-registration-screen); a new account has no saved
 * search, so / is its first step.
 */
async function landSignedIn(page) {
  await page.waitForURL((x) => x.pathname === "/" || x.pathname === "/login");
  if (new URL(page.url()).pathname === "/login") {
    await page.getByLabel("รหัสผ่าน", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "เข้าสู่ระบบ", exact: true }).click();
    await urlIs(page, "/");
  }
  await visible(page.getByTestId("user-menu-button"));
  await visible(page.getByTestId("first-step"));
  assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), "ตั้งการค้นหาแรกของคุณ");
}

/** Sideways scroll of the page, in px (0 when it fits). */
const sideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

export default [
  {
    name: "sign up → wrong code refused → code from SMTP typed → logged in",
    async fn(ctx) {
      const page = await ctx.newPage({ allowConsole: [/status of 400/] });
      const u = uniq("somchai");
      await signUp(page, u, "สมชาย ใจดี");
      assert.match(await page.getByTestId("otp-timer").innerText(), /^0[45]:\d\d$/);
      assert.equal(await page.getByTestId("otp-resend").isDisabled(), true, "Resend disabled while the countdown runs");
      await visible(page.getByTestId("back-to-registration"));
      await ctx.shot(page, "10-verify-registration");
      const code = await ctx.mail.codeFor(u.email, { after: 0 });
      const wrong = code === "000000" ? "111111" : "000000";
      await typeCode(page, wrong);
      await visible(page.getByTestId("otp-error").filter({ hasText: "รหัสยืนยันไม่ถูกต้อง" }));
      await ctx.shot(page, "11-verify-wrong-code");
      await typeCode(page, code);
      await landSignedIn(page);
      await ctx.shot(page, "12-first-step-desktop");
      await page.getByTestId("user-menu-button").click();
      assert.equal(await page.getByTestId("user-menu-name").innerText(), "สมชาย ใจดี");
      assert.equal(await page.getByTestId("user-menu-email").innerText(), u.email);
      await ctx.shot(page, "12-home-logged-in-menu");
      await page.keyboard.press("Escape");

      // The step can be skipped: on to the search; / is then the landing page for this visit.
      await page.getByTestId("first-step-skip").click();
      await urlIs(page, "/search");
      await visible(page.getByRole("heading", { name: "ค้นหาโครงการ" }));
      assert.equal(await page.getByTestId("save-dialog").count(), 0);
      await page.getByRole("link", { name: /BidRadar/ }).first().click();
      await urlIs(page, "/");
      await visible(page.getByTestId("tier-pro"));
      assert.equal(await page.getByTestId("first-step").count(), 0);
    },
  },
  {
    name: "sign up on a phone → the code pasted fills all six boxes → the first step saves a first search",
    async fn(ctx) {
      const page = await ctx.newPage({ viewport: { width: 360, height: 740 }, touch: true });
      const u = uniq("malee");
      await signUp(page, u, "มาลี มีสุข");
      const code = await ctx.mail.codeFor(u.email, { after: 0 });
      await pasteCode(page, code);
      await landSignedIn(page);
      assert.ok((await sideways(page)) <= 0, `the first step scrolls sideways by ${await sideways(page)} px at 360 px`);
      await ctx.shot(page, "14-first-step-phone", { fullPage: true });

      // A keyword typed and an example tapped, then into the search's save flow.
      const step = page.getByTestId("first-step");
      await step.getByLabel("คำค้นหา").fill("ก่อสร้างสะพาน");
      await step.getByRole("button", { name: "เพิ่มคำค้น ก่อสร้างถนน" }).tap();
      await step.getByTestId("first-step-submit").tap();
      await urlIs(page, "/search");
      const url = new URL(page.url());
      assert.deepEqual(url.searchParams.getAll("keyWord_Incl_Or"), ["ก่อสร้างถนน", "ก่อสร้างสะพาน"]);
      const dialog = await visible(page.getByTestId("save-dialog"));
      assert.ok((await sideways(page)) <= 0, `the save dialog scrolls sideways by ${await sideways(page)} px at 360 px`);
      await ctx.shot(page, "15-first-step-save-dialog-phone");
      // A new account is on the free plan, which holds one normal search: that kind is chosen and open.
      assert.equal(await dialog.getByRole("radio", { name: "ค้นหาทันที (ปกติ)" }).isChecked(), true);
      assert.equal(await dialog.getByTestId("save-locked-normal").count(), 0);
      await dialog.getByLabel(/ชื่อเงื่อนไข/).fill("งานถนนและสะพาน");
      await dialog.getByTestId("save-confirm").tap();
      // The save toast names the search (no emoji: the Thai fonts have no glyph for them).
      await toast(page, "บันทึกเงื่อนไขการค้นหา “งานถนนและสะพาน” แล้ว");
      await hidden(page.getByTestId("save-dialog"));

      // Saved on the server; / is now the landing page, the step is done.
      await page.goto("/user-settings/search-criteria");
      await visible(page.getByText("งานถนนและสะพาน").first());
      await page.goto("/");
      await visible(page.getByTestId("tier-pro"));
      assert.equal(await page.getByTestId("first-step").count(), 0);
    },
  },
  {
    name: "unverified account: login leads to 'Activate Your Account', the mailed code activates it",
    async fn(ctx) {
      const page = await ctx.newPage({ allowConsole: [/status of 403/, /status of 429/] });
      const u = uniq("wichai");
      const reg = await ctx.api("POST", "/register", { username: u.username, email: u.email, password: PASSWORD, name: "วิชัย" });
      assert.equal(reg.status, 200, reg.text);
      await login(page, u.email, PASSWORD);
      await urlIs(page, "/verify-registration");
      await visible(page.getByRole("heading", { name: "เปิดใช้งานบัญชีของคุณ" }));
      assert.equal(await page.getByTestId("toast").count(), 0, "an inactive login is not toasted");
      await ctx.shot(page, "13-activate-account");
      await page.getByTestId("activate-account").click();
      await visible(page.getByRole("heading", { name: "ยืนยันอีเมลของคุณ" }));
      // The newest code mailed to the address (register's, or activation's when it was sent).
      await new Promise((r) => setTimeout(r, 500));
      const n = ctx.mail.countFor(u.email);
      const code = await ctx.mail.codeFor(u.email, { after: n - 1 });
      await typeCode(page, code);
      await landSignedIn(page);
    },
  },
  {
    name: "verify-registration without an e-mail redirects to /signup",
    async fn(ctx) {
      const page = await ctx.newPage();
      await page.goto("/verify-registration");
      await urlIs(page, "/signup");
      await toast(page, "ไม่พบอีเมล");
    },
  },
];
