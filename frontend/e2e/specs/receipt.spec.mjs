// Receipts / tax invoices in a real browser (issues 10 and 22), on the local
// provider: the billing profile (a bad tax id refused in Thai before any
// call), an upgrade whose checkout names that buyer, its receipt from the
// payment history, printed (print media): number, Buddhist-era date, VAT and
// the total in Thai words, the app's header gone; Thai lines wrapping between
// words at 360 px; the same receipt by e-mail; renewal cancelled and resumed.
// A plain receipt reissued once as a replacement tax invoice.
import { assert, login, toast, urlIs, visible } from "../support/harness.mjs";
import { midWordBreaks } from "../support/thai-lines.mjs";

const PASSWORD = "ประมูลงานรัฐ-2569";
// Words the receipt must not split (the line breaker's dictionary lacks some).
const WHOLE = ["แพ็กเกจ", "เริ่มต้น", "มืออาชีพ", "รายเดือน", "พร้อมเพย์", "ทั้งสิ้น", "กรุงเทพมหานคร", "ภาษีมูลค่าเพิ่ม", "สาทรซิตี้ทาวเวอร์"];
const LONG_NAME = "บริษัท รับเหมาก่อสร้างและพัฒนาโครงสร้างพื้นฐานไทยรุ่งเรืองกิจ ทดสอบ จำกัด";
const LONG_ADDRESS = "เลขที่ 99/1 อาคารสาทรซิตี้ทาวเวอร์ ชั้นที่สิบสอง ถนนสาทรใต้ แขวงทุ่งมหาเมฆ เขตสาทร กรุงเทพมหานคร 10120";

/** Every Thai line of the receipt breaks between words. */
async function wrapsBetweenWords(page, where) {
  for (const id of ["receipt-item", "receipt-buyer", "receipt-seller", "receipt-words"]) {
    const bad = await midWordBreaks(page.getByTestId(id), WHOLE);
    assert.deepEqual(bad, [], `${where}: ${id} breaks inside words: ${bad.join(", ")}`);
  }
  for (const sel of [".receipt-lines", ".receipt-note"]) {
    const bad = await midWordBreaks(page.locator(sel), WHOLE);
    assert.deepEqual(bad, [], `${where}: ${sel} breaks inside words: ${bad.join(", ")}`);
  }
}

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
      await page.getByTestId("billing-name").fill(LONG_NAME);
      await page.getByTestId("billing-tax-id").fill("0105551234568");
      await page.getByTestId("billing-branch-office").check();
      await page.getByTestId("billing-branch").fill("00012");
      await page.getByTestId("billing-address").fill(LONG_ADDRESS);
      await page.getByTestId("billing-save").click();
      await visible(page.getByText("เลขประจำตัวผู้เสียภาษีไม่ถูกต้อง (เลขตรวจสอบหลักที่ 13 ไม่ตรง)"));
      await page.getByTestId("billing-tax-id").fill("0-1055-51234-56-7");
      await page.getByTestId("billing-save").click();
      await toast(page, "บันทึกข้อมูลสำหรับออกใบเสร็จแล้ว");

      // Upgrade: starter monthly by card; the checkout offers the saved profile as the buyer.
      await page.goto("/payment?tier=starter");
      await visible(page.getByTestId("payment-page"));
      await visible(page.getByTestId("lifecycle-rule"));
      await visible(page.getByTestId("pay-buyer"));
      assert.ok(await page.getByTestId("pay-invoice-tax").isChecked(), "a saved profile means a tax invoice");
      assert.equal(await page.getByTestId("pay-buyer").getByTestId("billing-name").inputValue(), LONG_NAME);
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
      assert.match(await page.getByTestId("receipt-buyer").innerText(), /ไทยรุ่งเรืองกิจ ทดสอบ จำกัด[\s\S]*0105551234567[\s\S]*สาขาที่ 00012/);
      assert.equal(await page.getByTestId("receipt-reissue").count(), 0, "a tax invoice needs no replacement");
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

      await wrapsBetweenWords(page, "1280 px");

      // At phone width it does not scroll sideways, and Thai lines break between words.
      await page.setViewportSize({ width: 360, height: 800 });
      await visible(page.getByTestId("receipt"));
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wide <= 0, `receipt scrolls sideways by ${wide}px at 360 px`);
      await wrapsBetweenWords(page, "360 px");
      await ctx.shot(page, "83-receipt-360", { fullPage: true });
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
  {
    name: "a plain receipt at checkout, reissued once as a replacement tax invoice citing it",
    async fn(ctx) {
      const u = await ctx.createUser("replace", { name: "ผู้ซื้อ ไม่ระบุบริษัท", password: PASSWORD });
      const page = await ctx.newPage();
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");

      // No billing profile: the checkout offers a plain receipt; the payer keeps it.
      await page.goto("/payment?tier=pro");
      await visible(page.getByTestId("pay-invoice"));
      assert.ok(await page.getByTestId("pay-invoice-receipt").isChecked(), "no profile means a plain receipt");
      await page.getByTestId("pay-method-promptpay").check();
      await page.getByTestId("pay-submit").click();
      await visible(page.getByTestId("local-checkout"));
      await page.getByTestId("local-pay").click();
      await urlIs(page, "/payment/tier/success");

      await page.goto("/user-settings/payment-settings");
      const link = await visible(page.getByTestId("receipt-link"));
      const original = (await link.innerText()).replace("เลขที่ ", "").trim();
      await link.click();
      await urlIs(page, `/receipt/${original}`);
      assert.match(await page.getByTestId("receipt-buyer").innerText(), new RegExp(u.email.replace(/[.+]/g, "\\$&")));

      // Its replacement tax invoice: checked here first, confirmed (once only), then shown.
      await page.getByTestId("receipt-reissue-start").click();
      const box = page.getByTestId("receipt-reissue");
      await box.getByTestId("billing-kind-company").check();
      await box.getByTestId("billing-name").fill("บริษัท ขอใบกำกับ ภายหลัง จำกัด");
      await box.getByTestId("billing-tax-id").fill("0105551234568");
      await box.getByTestId("billing-address").fill("88 ถนนพหลโยธิน แขวงสามเสนใน เขตพญาไท กรุงเทพมหานคร 10400");
      await box.getByTestId("receipt-reissue-submit").click();
      await visible(page.getByText("เลขประจำตัวผู้เสียภาษีไม่ถูกต้อง (เลขตรวจสอบหลักที่ 13 ไม่ตรง)"));
      await box.getByTestId("billing-tax-id").fill("0105551234567");
      page.once("dialog", (d) => d.accept());
      await box.getByTestId("receipt-reissue-submit").click();
      await toast(page, "ออกใบกำกับภาษีฉบับแทน");
      await page.waitForURL((url) => url.pathname.startsWith("/receipt/") && !url.pathname.endsWith(original));
      const replacement = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
      // The replacement's own data, not the original's still on screen while it loads.
      await visible(page.getByTestId("receipt-number").filter({ hasText: replacement }));
      await visible(page.getByTestId("receipt-replaces"));
      assert.equal(await page.getByTestId("receipt-number").innerText(), replacement);
      assert.equal(await page.getByTestId("receipt-title").innerText(), "ใบเสร็จรับเงิน / ใบกำกับภาษี (ใบแทน)");
      assert.match(await page.getByTestId("receipt-replaces").innerText(), new RegExp(`ออกแทนฉบับเดิมเลขที่ ${original} ลงวันที่ \\d{1,2} \\S+ 25\\d\\d`));
      assert.match(await page.getByTestId("receipt-buyer").innerText(), /บริษัท ขอใบกำกับ ภายหลัง จำกัด[\s\S]*0105551234567[\s\S]*สำนักงานใหญ่/);
      assert.equal(await page.getByTestId("receipt-reissue").count(), 0);
      await page.emulateMedia({ media: "print" });
      assert.ok(await page.getByTestId("receipt-replaces").isVisible(), "the replacement prints its original's number");
      await ctx.shot(page, "84-replacement-print", { fullPage: true });
      await page.emulateMedia({ media: "screen" });
      await page.setViewportSize({ width: 360, height: 800 });
      await ctx.shot(page, "85-replacement-360", { fullPage: true });
      await page.setViewportSize({ width: 1280, height: 860 });

      // The original stays as it was, pointing to its replacement; there is no second one.
      await page.goto(`/receipt/${original}`);
      await visible(page.getByTestId("receipt-replaced-by"));
      assert.match(await page.getByTestId("receipt-replaced-by").innerText(), new RegExp(replacement));
      assert.equal(await page.getByTestId("receipt-title").innerText(), "ใบเสร็จรับเงิน / ใบกำกับภาษี");
      assert.match(await page.getByTestId("receipt-buyer").innerText(), new RegExp(u.email.replace(/[.+]/g, "\\$&")));
      assert.equal(await page.getByTestId("receipt-reissue").count(), 0);
      const token = (await ctx.api("POST", "/login", { username: u.username, password: PASSWORD })).json.access_token;
      const again = await ctx.api("POST", `/users/me/receipts/${original}/reissue`, {}, { authorization: `Bearer ${token}` });
      assert.equal(again.status, 409, again.text);
      assert.match(again.json.detail, new RegExp(replacement));

      // The history lists both.
      await page.goto("/user-settings/payment-settings");
      assert.equal(await (await visible(page.getByTestId("replacement-link"))).innerText(), `ฉบับแทน ${replacement}`);

      // Mailed too.
      const mail = await ctx.mail.firstFor(u.email, (m) => (m.subject ?? "").includes(replacement), { after: 0 });
      assert.match(mail.text ?? "", new RegExp(`ออกแทนฉบับเดิมเลขที่ ${original}`));
    },
  },
];
