import { assert, pasteCode, toast, typeCode, uniq, urlIs, visible, login } from "../support/harness.mjs";

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

/** After verification the app goes home with a user, or to /login without one (SPEC §2). */
async function landSignedIn(page) {
  await page.waitForURL((x) => x.pathname === "/" || x.pathname === "/login");
  if (new URL(page.url()).pathname === "/login") {
    await page.getByLabel("รหัสผ่าน", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "เข้าสู่ระบบ", exact: true }).click();
    await urlIs(page, "/");
  }
  await visible(page.getByTestId("user-menu-button"));
}

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
      await page.getByTestId("user-menu-button").click();
      assert.equal(await page.getByTestId("user-menu-name").innerText(), "สมชาย ใจดี");
      assert.equal(await page.getByTestId("user-menu-email").innerText(), u.email);
      await ctx.shot(page, "12-home-logged-in-menu");
    },
  },
  {
    name: "sign up → the code pasted fills all six boxes → logged in",
    async fn(ctx) {
      const page = await ctx.newPage();
      const u = uniq("malee");
      await signUp(page, u, "มาลี มีสุข");
      const code = await ctx.mail.codeFor(u.email, { after: 0 });
      await pasteCode(page, code);
      await landSignedIn(page);
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
