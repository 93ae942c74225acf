import crypto from "node:crypto";
import { assert, login, pasteCode, typeCode, urlIs, visible } from "../support/harness.mjs";

export default [
  {
    name: "LINE login: new LINE identity linked to an account by e-mailed code; next time straight in",
    async fn(ctx) {
      const u = await ctx.createUser("lineuser", { name: "ไลน์ ทดสอบ" });
      const sub = `U${crypto.randomBytes(16).toString("hex")}`;
      ctx.line.setNextUser({ sub, name: "คุณไลน์", email: u.email });

      const page = await ctx.newPage();
      await page.goto("/login");
      await page.getByTestId("line-login").click();
      await urlIs(page, "/auth/line/success/verify-otp", 20_000);
      await visible(page.getByText("บัญชี LINE: คุณไลน์"));
      assert.equal(await page.getByLabel("อีเมล").inputValue(), u.email, "e-mail from the LINE ID token");
      await ctx.shot(page, "30-line-link-email");
      const before = ctx.mail.countFor(u.email);
      await page.getByRole("button", { name: "ส่งรหัสยืนยัน" }).click();
      await visible(page.getByTestId("otp-0"));
      const code = await ctx.mail.codeFor(u.email, { after: before });
      await ctx.shot(page, "31-line-link-code");
      await typeCode(page, code);
      await urlIs(page, "/auth/line/success");
      await visible(page.getByTestId("line-success"));
      await ctx.shot(page, "32-line-success");
      await urlIs(page, "/", 10_000);
      await visible(page.getByTestId("user-menu-button"));
      // LINE sessions restore through the LINE refresh path.
      const provider = await page.evaluate(() => JSON.parse(localStorage.getItem("bidradar-auth")).state.provider);
      assert.equal(provider, "line");
      await page.reload();
      await visible(page.getByTestId("user-menu-button"));

      await page.getByTestId("user-menu-button").click();
      await page.getByRole("menuitem", { name: "ออกจากระบบ" }).click();
      await urlIs(page, "/login");

      // The identity is linked now: LINE signs straight in.
      ctx.line.setNextUser({ sub, name: "คุณไลน์", email: u.email });
      await page.getByTestId("line-login").click();
      await urlIs(page, "/auth/line/success", 20_000);
      await urlIs(page, "/", 10_000);
      await page.getByTestId("user-menu-button").click();
      assert.equal(await page.getByTestId("user-menu-email").innerText(), u.email);
      await ctx.shot(page, "33-line-logged-in");
    },
  },
  {
    name: "LINE cancelled at LINE: back to /login",
    async fn(ctx) {
      const page = await ctx.newPage({ allowConsole: [/status of 400/] });
      await page.goto("/auth/line/callback?error=access_denied&state=x");
      await urlIs(page, "/login");
      await visible(page.getByTestId("toast").filter({ hasText: "ยกเลิกการเข้าสู่ระบบด้วย LINE" }));
    },
  },
  {
    name: "a signed-in user links LINE from the settings page: LINE, then the code e-mailed to the account",
    async fn(ctx) {
      const password = "ประมูลงานรัฐ-2569";
      const u = await ctx.createUser("linkme", { name: "ผู้ใช้ เชื่อม LINE", password });
      const sub = `U${crypto.randomBytes(16).toString("hex")}`;
      // LINE shares no e-mail here: the user types the account's address.
      ctx.line.setNextUser({ sub, name: "ไลน์ของฉัน" });
      const page = await ctx.newPage();
      await login(page, u.username, password);
      await urlIs(page, "/");
      await page.goto("/user-settings/line-api");
      assert.equal(await page.getByTestId("line-state").innerText(), "ยังไม่ได้เชื่อมบัญชี LINE");
      await page.getByTestId("line-link-start").click();
      await urlIs(page, "/auth/line/success/verify-otp", 20_000);
      await page.getByLabel("อีเมล").fill(u.email);
      const before = ctx.mail.countFor(u.email);
      await page.getByRole("button", { name: "ส่งรหัสยืนยัน" }).click();
      await visible(page.getByTestId("otp-0"));
      await pasteCode(page, await ctx.mail.codeFor(u.email, { after: before }));
      await urlIs(page, "/auth/line/success");
      await page.goto("/user-settings/line-api");
      await visible(page.getByTestId("line-state"));
      assert.equal(await page.getByTestId("line-state").innerText(), "เชื่อมบัญชี LINE แล้ว");
      // The owner is told by e-mail.
      // Found by its content, not by its number: mail sent after an answer
      // may land in either order.
      const notice = await ctx.mail.firstFor(u.email, (m) => !m.code && /LINE/.test(m.subject), { after: before });
      assert.match(notice.subject, /LINE/);
    },
  },
];
