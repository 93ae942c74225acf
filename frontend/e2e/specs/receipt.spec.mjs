// Receipts / tax invoices in a real browser (issue 10), on the local
// provider: the billing profile (a bad tax id refused in Thai before any
// call), an upgrade, its receipt from the payment history, printed (print
// media): number, Buddhist-era date, VAT and the total in Thai words, the app's
// header gone; the same receipt by e-mail; renewal cancelled and resumed.
import { assert, login, toast, urlIs, visible } from "../support/harness.mjs";

const PASSWORD = "ประมูลงานรัฐ-2569";

export default [
  {
    name: "billing profile, upgrade through the local provider, receipt print view, cancel and resume renewal",
    async fn(ctx) {
      const u = await ctx.createUser("receipt", { name: "ผู้ขอ ใบเสร็จ", password: PASSWORD });
      const page = await ctx.newPage();
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");

      // The billing profile: checked here first, saved normalised.
      await page.goto("/user-settings/payment-settings");
      await visible(page.getByTestId("billing-profile-form"));
      await page.getByTestId("billing-kind-company").check();
      await page.getByTestId("billing-name").fill("บริษัท รับเหมา ทดสอบ จำกัด");
      await page.getByTestId("billing-tax-id").fill("0105551234568");
      await page.getByTestId("billing-branch-office").check();
      await page.getByTestId("billing-branch").fill("00012");
      await page.getByTestId("billing-address").fill("99/1 ถนนสีลม แขวงสุริยวงศ์ เขตบางรัก กรุงเทพมหานคร 10500");
      await page.getByTestId("billing-save").click();
      await visible(page.getByText("เลขประจำตัวผู้เสียภาษีไม่ถูกต้อง (เลขตรวจสอบหลักที่ 13 ไม่ตรง)"));
      await page.getByTestId("billing-tax-id").fill("0-1055-51234-56-7");
      await page.getByTestId("billing-save").click();
      await toast(page, "บันทึกข้อมูลสำหรับออกใบเสร็จแล้ว");

      // Upgrade: starter monthly by card.
      await page.goto("/payment?tier=starter");
      await visible(page.getByTestId("payment-page"));
      await visible(page.getByTestId("lifecycle-rule"));
      await page.getByTestId("pay-period-monthly").check();
      await page.getByTestId("pay-method-card").check();
      await page.getByTestId("pay-submit").click();
      await visible(page.getByTestId("local-checkout"));
      await page.getByTestId("local-pay").click();
      await urlIs(page, "/payment/tier/success");
      await visible(page.getByTestId("success-tier"));

      // The history links to the receipt.
      await page.goto("/user-settings/payment-settings");
      const link = await visible(page.getByTestId("receipt-link"));
      const number = (await link.innerText()).replace("เลขที่ ", "").trim();
      assert.match(number, /^RC25\d\d-\d{6}$/);
      await link.click();
      await urlIs(page, `/receipt/${number}`);
      await visible(page.getByTestId("receipt"));
      assert.equal(await page.getByTestId("receipt-number").innerText(), number);
      assert.match(await page.getByTestId("receipt-date").innerText(), /^\d{1,2} \S+ 25\d\d$/); // Buddhist era
      assert.equal(await page.getByTestId("receipt-total").innerText(), "490.00");
      assert.equal(await page.getByTestId("receipt-vat").innerText(), "32.06");
      assert.equal(await page.getByTestId("receipt-base").innerText(), "457.94");
      assert.equal(await page.getByTestId("receipt-words").innerText(), "(สี่ร้อยเก้าสิบบาทถ้วน)");
      assert.match(await page.getByTestId("receipt-buyer").innerText(), /บริษัท รับเหมา ทดสอบ จำกัด[\s\S]*0105551234567[\s\S]*สาขาที่ 00012/);
      assert.match(await page.getByTestId("receipt-seller").innerText(), /สำนักงานใหญ่/);
      await ctx.shot(page, "80-receipt-screen", { fullPage: true });

      // Printed: the document alone, on A4.
      await page.emulateMedia({ media: "print" });
      await visible(page.getByTestId("receipt-number"));
      assert.ok(await page.getByTestId("receipt-words").isVisible(), "Thai words printed");
      assert.equal(await page.getByTestId("site-header").isVisible(), false, "the app header is not printed");
      assert.equal(await page.getByTestId("receipt-print").isVisible(), false, "the print button is not printed");
      await ctx.shot(page, "81-receipt-print", { fullPage: true });
      const pdf = await page.pdf({ format: "A4", preferCSSPageSize: true });
      assert.ok(pdf.length > 1000, "printable as a PDF");
      await page.emulateMedia({ media: "screen" });

      // At phone width it does not scroll sideways.
      await page.setViewportSize({ width: 360, height: 800 });
      await visible(page.getByTestId("receipt"));
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wide <= 0, `receipt scrolls sideways by ${wide}px at 360 px`);
      await page.setViewportSize({ width: 1280, height: 860 });

      // The same document by e-mail, in Thai.
      const mail = await ctx.mail.firstFor(u.email, (m) => (m.subject ?? "").includes(number), { after: 0 });
      assert.match(mail.text ?? "", /สี่ร้อยเก้าสิบบาทถ้วน/);

      // Card plans renew; cancel (after confirming) and resume.
      await page.goto("/user-settings/payment-settings");
      await visible(page.getByTestId("renewal-panel"));
      assert.match(await page.getByTestId("renewal-state").innerText(), /ต่ออายุอัตโนมัติ/);
      page.once("dialog", (d) => d.accept());
      await page.getByTestId("renewal-cancel").click();
      await visible(page.getByTestId("renewal-resume"));
      assert.match(await page.getByTestId("renewal-state").innerText(), /ยกเลิกการต่ออายุแล้ว/);
      await page.getByTestId("renewal-resume").click();
      await visible(page.getByTestId("renewal-cancel"));
      await page.setViewportSize({ width: 360, height: 800 });
      await ctx.shot(page, "82-payment-settings-360", { fullPage: true });
      await page.setViewportSize({ width: 1280, height: 860 });

      // Another user cannot read it.
      const other = await ctx.createUser("stranger", { password: PASSWORD });
      const page2 = await ctx.newPage({ allowConsole: [/404/] });
      await login(page2, other.username, PASSWORD);
      await urlIs(page2, "/");
      await page2.goto(`/receipt/${number}`);
      await visible(page2.getByTestId("receipt-missing"));
    },
  },
];
