// Paying in a real browser (issues 10 and 22) on the stack as `make run`
// starts it (no Stripe keys: the local provider): choose a plan and the buyer
// the tax invoice names, pay on the local page, see the new tier, its dates
// and the receipt number in the settings pages; the payment history fits a
// phone (a card a payment, no sideways scrolling).
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
      // A tax invoice: the buyer typed here, checked before anything is sent.
      await page.getByTestId("pay-invoice-tax").check();
      const buyer = page.getByTestId("pay-buyer");
      await buyer.getByTestId("billing-kind-company").check();
      await buyer.getByTestId("billing-name").fill("บริษัท ผู้ซื้อ ที่หน้าชำระเงิน จำกัด");
      await buyer.getByTestId("billing-tax-id").fill("0105551234568");
      await buyer.getByTestId("billing-branch-office").check();
      await buyer.getByTestId("billing-branch").fill("00003");
      await buyer.getByTestId("billing-address").fill("7 ถนนราชดำเนิน เขตพระนคร กรุงเทพมหานคร 10200");
      await page.getByTestId("pay-submit").click();
      await visible(page.getByText("เลขประจำตัวผู้เสียภาษีไม่ถูกต้อง (เลขตรวจสอบหลักที่ 13 ไม่ตรง)"));
      assert.match(page.url(), /\/payment\?tier=pro$/);
      await buyer.getByTestId("billing-tax-id").fill("0105551234567");
      await ctx.shot(page, "70-payment-choose", { fullPage: true });
      await page.setViewportSize({ width: 360, height: 800 });
      const wideCheckout = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wideCheckout <= 0, `/payment scrolls sideways by ${wideCheckout}px at 360 px`);
      await ctx.shot(page, "70-payment-choose-360", { fullPage: true });
      await page.setViewportSize({ width: 1280, height: 860 });
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
      // The receipt names the buyer given at checkout.
      await page.getByTestId("receipt-link").first().click();
      await visible(page.getByTestId("receipt"));
      assert.match(await page.getByTestId("receipt-buyer").innerText(), /บริษัท ผู้ซื้อ ที่หน้าชำระเงิน จำกัด[\s\S]*0105551234567[\s\S]*สาขาที่ 00003/);

      // The history on a phone: every payment a card of labelled lines, nothing wider than the screen.
      await page.setViewportSize({ width: 360, height: 800 });
      await page.goto("/user-settings/payment-settings");
      const history = await visible(page.getByTestId("payment-history"));
      const fit = await history.evaluate((t) => ({
        table: t.getBoundingClientRect().right,
        widest: Math.max(...[...t.querySelectorAll("td, a")].map((e) => e.getBoundingClientRect().right)),
        scroll: t.scrollWidth - t.clientWidth,
        screen: window.innerWidth,
        row: getComputedStyle(t.querySelector("tr[data-testid=payment-row]")).display,
      }));
      assert.ok(fit.table <= fit.screen && fit.widest <= fit.screen && fit.scroll <= 0, `payment history wider than 360 px: ${JSON.stringify(fit)}`);
      assert.equal(fit.row, "block", "a payment is a card on a phone");
      const labels = await page.getByTestId("payment-row").first().evaluate((tr) => [...tr.cells].map((td) => getComputedStyle(td, "::before").content));
      assert.deepEqual(labels, ['"วันที่"', '"แพ็กเกจ"', '"ยอดชำระ"', '"สถานะ"', '"ใบเสร็จ"'], "each line says what it is");
      await ctx.shot(page, "73-payment-history-360", { fullPage: true });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto("/user-settings/payment-settings");
      await visible(page.getByTestId("payment-row").first());
      await ctx.shot(page, "73-payment-history-1280", { fullPage: true });
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
