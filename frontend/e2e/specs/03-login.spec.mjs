import { assert, hidden, login, toast, typeCode, urlIs, visible } from "../support/harness.mjs";

export default [
  {
    name: "wrong password is refused with a Thai message",
    async fn(ctx) {
      const u = await ctx.createUser("pranee");
      const page = await ctx.newPage({ allowConsole: [/status of 401/] });
      await login(page, u.username, "not-the-password");
      await toast(page, "ชื่อผู้ใช้หรือรหัสผ่านไม่ถูกต้อง");
      await urlIs(page, "/login");
      await ctx.shot(page, "20-login-wrong-password");
    },
  },
  {
    name: "two-step login: code step, wrong code refused, right code signs in; reload keeps the session",
    async fn(ctx) {
      const u = await ctx.createUser("anan", { name: "อนันต์ ทองดี", twoStep: true });
      const page = await ctx.newPage({ allowConsole: [/status of 400/] });
      const before = ctx.mail.countFor(u.email);
      await login(page, u.username, u.password);
      await visible(page.getByTestId("two-step-lead"));
      assert.match(await page.getByTestId("two-step-lead").innerText(), new RegExp(u.email.replace(/\./g, "\\.")));
      await ctx.shot(page, "21-login-two-step");
      const code = await ctx.mail.codeFor(u.email, { after: before });
      await typeCode(page, code === "000000" ? "111111" : "000000");
      await visible(page.getByTestId("otp-error"));
      await typeCode(page, code);
      await urlIs(page, "/");
      await toast(page, "เข้าสู่ระบบสำเร็จ");
      await visible(page.getByTestId("user-menu-button"));
      // Start-up restores the session from the HttpOnly refresh cookie.
      await page.reload();
      await visible(page.getByTestId("user-menu-button"));
      const stored = await page.evaluate(() => localStorage.getItem("bidradar-auth") ?? "");
      assert.ok(!/eyJ|access_token|accessToken/.test(stored), "no token in browser storage");
      await page.goto("/user-settings");
      await urlIs(page, "/user-settings/user-info");
      await ctx.shot(page, "22-settings-user-info");
    },
  },
  {
    name: "expired code: boxes and submit disabled, Resend enabled, a new code signs in",
    async fn(ctx) {
      const u = await ctx.createUser("kanda", { twoStep: true });
      const page = await ctx.newPage();
      await page.clock.install();
      const before = ctx.mail.countFor(u.email);
      await login(page, u.username, u.password);
      await visible(page.getByTestId("two-step-lead"));
      await ctx.mail.codeFor(u.email, { after: before });
      await page.clock.fastForward("05:01");
      await visible(page.getByText("รหัสหมดอายุแล้ว"));
      await visible(page.getByText("รหัส OTP หมดอายุแล้ว กรุณาขอรหัสใหม่"));
      assert.equal(await page.getByTestId("otp-0").isDisabled(), true);
      assert.equal(await page.getByRole("button", { name: "ยืนยันรหัส" }).isDisabled(), true);
      assert.equal(await page.getByTestId("otp-resend").isDisabled(), false);
      await ctx.shot(page, "23-otp-expired");
      // The server allows a new code 60 s after the last one (docs/architecture.md#one-time-codes):
      // its clock is moved past that instead of waiting, then brought back so
      // the tokens it issues carry real time for the other services.
      await ctx.serverClock.set("61s");
      // Counted here, not from `before`: the notice that two-step was turned
      // on is mailed after createUser's answer and may land before or after
      // `before` was taken; counting from it could pick the first code again.
      const beforeResend = ctx.mail.countFor(u.email);
      await page.getByTestId("otp-resend").click();
      await toast(page, "ส่งรหัสใหม่ไปที่อีเมลของคุณแล้ว");
      await ctx.serverClock.set("0s");
      assert.equal(await page.getByTestId("otp-timer").innerText(), "05:00");
      const fresh = await ctx.mail.codeFor(u.email, { after: beforeResend });
      await typeCode(page, fresh);
      await urlIs(page, "/");
      await visible(page.getByTestId("user-menu-button"));
    },
  },
  {
    name: "forgot password: code from SMTP, new password, old one refused",
    async fn(ctx) {
      const u = await ctx.createUser("somsri");
      const page = await ctx.newPage({ allowConsole: [/status of 401/] });
      await page.goto("/login");
      await page.getByRole("link", { name: "ลืมรหัสผ่าน?" }).click();
      await page.waitForURL((x) => x.pathname === "/forgot-password/%2Flogin");
      await page.getByLabel("อีเมล").fill(u.email);
      const before = ctx.mail.countFor(u.email);
      await page.getByRole("button", { name: "ส่งรหัสตั้งรหัสผ่านใหม่" }).click();
      await visible(page.getByRole("heading", { name: "ตั้งรหัสผ่านใหม่" }));
      const code = await ctx.mail.codeFor(u.email, { after: before });
      const newPassword = "รหัสใหม่-ปลอดภัย-99";
      await page.getByLabel("รหัสผ่านใหม่").fill(newPassword);
      await page.getByLabel("ยืนยันรหัสผ่าน").fill(newPassword);
      await ctx.shot(page, "24-forgot-reset");
      await typeCode(page, code);
      await urlIs(page, "/login");
      await toast(page, "ตั้งรหัสผ่านใหม่เรียบร้อย");
      await login(page, u.username, u.password);
      await toast(page, "ชื่อผู้ใช้หรือรหัสผ่านไม่ถูกต้อง");
      await page.getByLabel("รหัสผ่าน", { exact: true }).fill(newPassword);
      await page.getByRole("button", { name: "เข้าสู่ระบบ", exact: true }).click();
      await urlIs(page, "/");
      await visible(page.getByTestId("user-menu-button"));
    },
  },
  {
    name: "logout: 'Logged out successfully.', then /login; the session is gone after reload",
    async fn(ctx) {
      const u = await ctx.createUser("logout");
      const page = await ctx.newPage();
      await login(page, u.username, u.password);
      await urlIs(page, "/");
      await page.getByTestId("user-menu-button").click();
      await page.getByRole("menuitem", { name: "ออกจากระบบ" }).click();
      await toast(page, "ออกจากระบบเรียบร้อยแล้ว");
      await urlIs(page, "/login");
      await ctx.shot(page, "25-logged-out");
      await page.reload();
      await visible(page.getByTestId("login-form"));
      await hidden(page.getByTestId("user-menu-button"));
      await page.goto("/user-settings/security-settings");
      await urlIs(page, "/login");
    },
  },
  {
    name: "mobile: logged-in slide-in menu shows the user and logs out",
    async fn(ctx) {
      const u = await ctx.createUser("mobile", { name: "ผู้ใช้ มือถือ" });
      const page = await ctx.newPage({ viewport: { width: 390, height: 844 } });
      await login(page, u.username, u.password);
      await urlIs(page, "/");
      await page.getByTestId("menu-toggle").click();
      await visible(page.getByTestId("mobile-menu").getByText(u.email));
      await page.waitForTimeout(300);
      await ctx.shot(page, "26-mobile-menu-logged-in");
      await page.getByTestId("mobile-menu").getByRole("button", { name: "ออกจากระบบ" }).click();
      await toast(page, "ออกจากระบบเรียบร้อยแล้ว");
      await urlIs(page, "/login");
      assert.equal(await page.evaluate(() => document.body.style.overflow), "");
    },
  },
];
