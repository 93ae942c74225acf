// Plan limits in a real browser: the pricing cards say what the tier table
// holds (the same values the services enforce), and a free user who hits a
// limit is told in Thai what to do.
import { assert, login, toast, urlIs, visible } from "../support/harness.mjs";

const PASSWORD = "ประมูลงานรัฐ-2569";
const fmt = (n) => n.toLocaleString("en-US");

async function noSidewaysScroll(page, what) {
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wide <= 0, `${what} scrolls sideways by ${wide}px`);
}

export default [
  {
    name: "limits: the pricing cards show the tier table's numbers and features, at 1280 and 360 px",
    async fn(ctx) {
      const tiers = await ctx.api("GET", "/subscription-tiers?include_all=true");
      assert.equal(tiers.status, 200, tiers.text);
      const page = await ctx.newPage();
      await page.goto("/#pricing");
      for (const t of tiers.json.tier_details) {
        const card = await visible(page.getByTestId(`tier-${t.tier}`));
        const l = t.combination_limits;
        const line = (k) => card.getByTestId(`plan-line-${k}`);
        assert.equal(await line("normal_search_save").innerText(), `บันทึกเงื่อนไขค้นหา ${fmt(l.normal_search_save)} ชุด`, t.tier);
        if (l.overnight_search_save > 0) {
          assert.equal(await line("overnight_search_save").innerText(), `ค้นหาข้ามคืนอัตโนมัติ ${fmt(l.overnight_search_save)} ชุด`, t.tier);
        } else {
          assert.equal(await line("overnight_search_save").count(), 0, `${t.tier} offers no overnight search`);
        }
        await visible(line("bell"));
        for (const f of ["email_alerts", "line_alerts", "ocds_export", "account_manager"]) {
          assert.equal(await line(f).count(), t.features.includes(f) ? 1 : 0, `${t.tier} ${f}`);
        }
      }
      // What the cards used to promise, now from the table: free is one search and the bell.
      const free = page.getByTestId("tier-free");
      assert.match(await free.innerText(), /บันทึกเงื่อนไขค้นหา 1 ชุด/);
      assert.doesNotMatch(await free.innerText(), /อีเมล|LINE|OCDS|ข้ามคืนอัตโนมัติ/);
      assert.match(await page.getByTestId("tier-pro").innerText(), /แจ้งเตือนผ่าน LINE[\s\S]*ส่งออกข้อมูล OCDS/);
      await page.getByTestId("tier-pro").scrollIntoViewIfNeeded();
      await ctx.shot(page, "90-limits-pricing-cards-1280");
      await page.setViewportSize({ width: 360, height: 780 });
      await page.getByTestId("tier-free").scrollIntoViewIfNeeded();
      await noSidewaysScroll(page, "the pricing cards at 360 px");
      await ctx.shot(page, "91-limits-pricing-cards-360");
    },
  },
  {
    name: "limits: a free user's second saved search is refused with the plan's reason in Thai, then the dialog says why; e-mail and LINE are closed",
    async fn(ctx) {
      const u = await ctx.createUser("limitfree", { name: "ฟรี จำกัด", password: PASSWORD });
      // The save refused by the server logs its 409 in the console.
      const page = await ctx.newPage({ allowConsole: [/status of 409/] });
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");
      await page.goto(`/search?keyWord_Incl_Or=${encodeURIComponent("ถนน")}`);
      await visible(page.getByTestId("criteria-form"));
      await page.getByTestId("save-criteria").click();
      let dialog = await visible(page.getByTestId("save-dialog"));
      // Overnight is not in the free plan: closed, with why and the way to the plans.
      assert.ok(await dialog.getByRole("radio", { name: "ค้นหาอัตโนมัติทุกคืน" }).isDisabled());
      await visible(dialog.getByTestId("save-locked-overnight").filter({ hasText: "ไม่รวมการค้นหาข้ามคืน" }));
      await dialog.getByRole("button", { name: "ยกเลิก" }).click();

      // Meanwhile another device saves the plan's one search.
      const li = await ctx.api("POST", "/login", { username: u.username, password: PASSWORD });
      const other = await ctx.api("POST", "/to_do_search", { keyWord_Incl_Or: ["สะพาน"] }, { authorization: `Bearer ${li.json.access_token}` });
      assert.equal(other.status, 200, other.text);

      // This page still thinks there is room: the server refuses, in Thai.
      await page.getByTestId("save-criteria").click();
      dialog = await visible(page.getByTestId("save-dialog"));
      await dialog.getByTestId("save-confirm").click();
      await toast(page, "⚠️ Limit reached: บันทึกเงื่อนไขค้นหาแบบปกติได้ 1 ชุดในแพ็กเกจฟรี");
      await toast(page, "บันทึกเงื่อนไขการค้นหาครบจำนวนที่แพ็กเกจของคุณรองรับแล้ว ลบเงื่อนไขที่ไม่ใช้ หรืออัปเกรดแพ็กเกจเพื่อบันทึกเพิ่ม");
      await ctx.shot(page, "92-limits-refused-toast");

      // Asked again, the dialog knows: both kinds closed, why, and the plans.
      await page.keyboard.press("Escape");
      await page.getByTestId("save-criteria").click();
      dialog = await visible(page.getByTestId("save-dialog"));
      await visible(dialog.getByTestId("save-locked-normal").filter({ hasText: "บันทึกการค้นหาแบบปกติได้ 1 ชุด และใช้ครบแล้ว" }));
      assert.ok(await dialog.getByTestId("save-confirm").isDisabled());
      assert.equal(await dialog.getByTestId("save-locked-plans").getAttribute("href"), "/user-settings/pricing");
      await page.setViewportSize({ width: 360, height: 780 });
      await noSidewaysScroll(page, "the save dialog at 360 px");
      await ctx.shot(page, "93-limits-save-dialog-full-360");
      await page.setViewportSize({ width: 1280, height: 860 });
      await page.keyboard.press("Escape");

      // The saved searches page counts them against the plan.
      await page.goto("/user-settings/search-criteria");
      await visible(page.getByTestId("normal-usage").filter({ hasText: "ค้นหาแบบปกติ 1/1 ชุด" }));
      await visible(page.getByTestId("normal-full").getByRole("link", { name: "ดูแพ็กเกจ" }));

      // E-mail and LINE are not in the free plan: closed, with why.
      await page.goto("/user-settings/notification-settings");
      await visible(page.getByTestId("not-in-plan-emailEnabled").filter({ hasText: "ไม่รวมการแจ้งเตือนทางอีเมล" }));
      assert.ok(await page.getByTestId("setting-emailEnabled").isDisabled());
      await page.setViewportSize({ width: 360, height: 780 });
      await noSidewaysScroll(page, "notification settings at 360 px");
      await ctx.shot(page, "94-limits-notification-settings-free-360", { fullPage: true });
    },
  },
];
