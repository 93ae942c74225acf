// Paying in a real browser (issue 10) on the stack as `make run` starts it
// (no Stripe keys: the local provider): choose a plan, pay on the local page,
// see the new tier, its dates and the receipt number in the settings pages.
import { assert, login, urlIs, visible } from "../support/harness.mjs";

const PASSWORD = "ประมูลงานรัฐ-2569";

export default [
  {
    name: "upgrade through the local provider: plan, period, pay, success, account status, payment history",
    async fn(ctx) {
      const u = await ctx.createUser("payer", { name: "ผู้ซื้อ แพ็กเกจ", password: PASSWORD });
      const page = await ctx.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");

      await page.goto("/payment?tier=pro");
      await visible(page.getByTestId("payment-page"));
      await page.getByTestId("pay-period-yearly").check();
      await page.getByTestId("pay-method-promptpay").check();
      assert.match(await page.getByTestId("pay-amount").innerText(), /14,900/); // a year costs 10 months
      await ctx.shot(page, "70-payment-choose", { fullPage: true });
      await page.getByTestId("pay-submit").click();

      await visible(page.getByTestId("local-checkout"));
      assert.match(page.url(), /\/payment\/local\/local_cs_/);
      assert.match(await page.getByTestId("local-amount").innerText(), /14,900/);
      await ctx.shot(page, "71-payment-local");
      await page.getByTestId("local-pay").click();

      await urlIs(page, "/payment/tier/success");
      await visible(page.getByTestId("success-tier"));
      assert.match(await page.getByTestId("success-tier").innerText(), /มืออาชีพ/);
      assert.match(await page.getByTestId("success-tier").innerText(), /25\d\d/); // Buddhist era

      await page.goto("/user-settings/account-status");
      await visible(page.getByTestId("status-tier"));
      assert.match(await page.getByTestId("status-tier").innerText(), /มืออาชีพ/);
      assert.equal(await page.getByTestId("status-days").innerText(), "365");
      await page.goto("/user-settings/payment-settings");
      await visible(page.getByTestId("payment-row").first());
      assert.match(await page.getByTestId("payment-row").first().innerText(), /เลขที่ RC25\d\d-\d{6}/);
      await page.goto("/user-settings/pricing");
      await visible(page.getByTestId("tier-current-pro"));
      await ctx.shot(page, "72-settings-pricing", { fullPage: true });

      // Every settings page loads without a script error, at phone width too.
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 800 });
        for (const s of ["user-info", "account-status", "pricing", "payment-settings", "notification-settings", "advanced-features", "security-settings", "search-criteria", "line-api", "contact-us"]) {
          await page.goto(`/user-settings/${s}`);
          await visible(page.locator(".settings-body h1, .settings-body h2").first());
          const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(wide <= 0, `/user-settings/${s} scrolls sideways by ${wide}px at ${width} px`);
        }
      }
      assert.deepEqual(errors, []);
    },
  },
];
