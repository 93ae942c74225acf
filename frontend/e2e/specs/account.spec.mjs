// The account's self-service in a real browser (issues 10, 12 and 22): profile
// name and picture, a copy of one's data, the devices signed in (sign one
// out from another), contact us, a new e-mail, and deleting the account
// (with a card plan in force: the screen says what happens to it).
import fs from "node:fs";
import { assert, login, pasteCode, toast, urlIs, visible } from "../support/harness.mjs";

const PASSWORD = "ประมูลงานรัฐ-2569";
// A 40×30 red PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAACgAAAAeCAIAAADRv8uKAAAAK0lEQVR4nO3NMQ0AAAgDsEmafxVIQgYcTfo3056IWCwWi8VisVgsFov/xgtTcpFM0LAPSQAAAABJRU5ErkJggg==",
  "base64",
);

export default [
  {
    name: "profile, my data, devices, contact us, delete the account",
    async fn(ctx) {
      const u = await ctx.createUser("selfsvc", { name: "ผู้ใช้ เดิม", password: PASSWORD });
      const page = await ctx.newPage();
      page.on("dialog", (d) => void d.accept());
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");

      // Profile: a new name and picture, kept by the server.
      await page.goto("/user-settings/user-info");
      await visible(page.getByTestId("profile-form"));
      await page.getByTestId("profile-name").fill("สมหญิง ประมูลเก่ง");
      await page.getByTestId("picture-input").setInputFiles({ name: "me.png", mimeType: "image/png", buffer: PNG });
      await visible(page.getByTestId("profile-form").getByTestId("avatar-img"));
      await page.getByTestId("profile-save").click();
      await toast(page, "บันทึกข้อมูลส่วนตัวแล้ว");
      await page.reload();
      await visible(page.getByTestId("profile-form"));
      assert.equal(await page.getByTestId("profile-name").inputValue(), "สมหญิง ประมูลเก่ง");
      const src = await page.getByTestId("settings-user").getByTestId("avatar-img").getAttribute("src");
      assert.match(src ?? "", /^data:image\/jpeg;base64,/);
      await ctx.shot(page, "80-settings-profile", { fullPage: true });

      // A copy of my data.
      const [dl] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-my-data").click()]);
      assert.match(dl.suggestedFilename(), /^bidradar-my-data-\d{4}-\d{2}-\d{2}\.json$/);
      const data = JSON.parse(fs.readFileSync(await dl.path(), "utf8"));
      assert.equal(data.account.user.name, "สมหญิง ประมูลเก่ง");
      assert.equal(data.account.user.email, u.email);
      for (const k of ["sessions", "tracked_projects", "saved_searches", "notifications", "notification_settings", "subscription", "payments"]) {
        assert.ok(k in data, `my data has ${k}`);
      }

      // A second device; this one signs it out.
      const other = await ctx.newPage({ allowConsole: [/401|Unauthorized|status of 4\d\d/] });
      await login(other, u.username, PASSWORD);
      await urlIs(other, "/");
      await page.goto("/user-settings/security-settings");
      await visible(page.getByTestId("session-row"));
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="session-row"]').length >= 2);
      assert.equal(await page.getByTestId("session-row").filter({ hasText: "อุปกรณ์นี้" }).count(), 1);
      await ctx.shot(page, "81-settings-sessions", { fullPage: true });
      await page.getByTestId("sessions-end-others").click();
      await toast(page, "ออกจากระบบอุปกรณ์อื่นทั้งหมดแล้ว");
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="session-row"]').length === 1);
      await other.goto("/user-settings/user-info");
      await urlIs(other, "/login");

      // Contact us.
      await page.goto("/user-settings/contact-us");
      await page.getByTestId("contact-topic").fill("ขอใบกำกับภาษีเต็มรูป");
      await page.getByTestId("contact-message").fill("รบกวนออกใบกำกับภาษีในนามบริษัทด้วยค่ะ");
      await page.getByTestId("contact-send").click();
      await visible(page.getByTestId("contact-sent"));
      const support = await ctx.mail.nextFor("support@bidradar.test", { after: 0 });
      assert.match(support.text, /ใบกำกับภาษีในนามบริษัท/);

      // A new e-mail: the password, then the code sent to the new address.
      const newEmail = `moved.${u.email}`;
      await page.goto("/user-settings/user-info");
      await page.getByTestId("email-new").fill(newEmail);
      await page.getByTestId("email-password").fill(PASSWORD);
      const beforeNew = ctx.mail.countFor(newEmail);
      await page.getByTestId("email-send").click();
      await visible(page.getByTestId("email-code"));
      await pasteCode(page, await ctx.mail.codeFor(newEmail, { after: beforeNew }));
      await toast(page, "เปลี่ยนอีเมลแล้ว");
      assert.equal(await page.getByTestId("user-email").innerText(), newEmail);

      // A card plan in force: the deletion screen says, in Thai, that it stops renewing and is
      // cancelled at the payment provider.
      const token = (await ctx.api("POST", "/login", { username: u.username, password: PASSWORD })).json.access_token;
      const auth = { authorization: `Bearer ${token}` };
      const co = await ctx.api("POST", "/payment/checkout", { tier: "pro", period: "monthly", method: "card", receipt_only: true }, auth);
      assert.equal(co.status, 200, co.text);
      assert.equal((await ctx.api("POST", `/payment/local/${co.json.session_id}/complete`, { outcome: "paid" }, auth)).status, 200);
      await page.goto("/user-settings/user-info");
      const warning = await visible(page.getByTestId("delete-plan-warning"));
      assert.match(await warning.innerText(), /แพ็กเกจมืออาชีพ[\s\S]*การต่ออายุจะหยุด[\s\S]*ยกเลิกที่ผู้ให้บริการรับชำระเงิน/);
      await page.setViewportSize({ width: 360, height: 800 });
      await warning.scrollIntoViewIfNeeded();
      await ctx.shot(page, "86-delete-with-plan-360", { fullPage: true });
      await page.setViewportSize({ width: 1280, height: 860 });

      // Delete the account with the e-mailed code.
      await page.goto("/user-settings/user-info");
      const before = ctx.mail.countFor(newEmail);
      await page.getByTestId("delete-account").click();
      await visible(page.getByTestId("delete-code"));
      const code = await ctx.mail.codeFor(newEmail, { after: before });
      await pasteCode(page, code);
      await urlIs(page, "/");
      await toast(page, "ลบบัญชีของคุณเรียบร้อยแล้ว");
      const again = await ctx.api("POST", "/login", { username: u.username, password: PASSWORD });
      assert.equal(again.status, 401, `login after deletion: ${again.text}`);
    },
  },
];
