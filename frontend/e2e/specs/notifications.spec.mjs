// Alerts in a real browser (issue 11): a saved search, then an ingestion of a
// matching project: the bell's count rises live without a reload, the toast
// shows, the dropdown lists it and marking it read lowers the count; the full
// page and the settings page work at phone width.
import { assert, login, toast, urlIs, visible } from "../support/harness.mjs";

const WORD = "ระบบแจ้งเตือนอีทูอี"; // only the project ingested here carries it
const PASSWORD = "ประมูลงานรัฐ-2569";

// Dated now: an instant alert is for new data only (docs/product.md: a
// project announced or closed more than 7 days ago alerts nobody).
function release(id) {
  const now = new Date().toISOString();
  return {
    uri: "https://example.test/e2e-bell.json",
    publishedDate: now,
    version: "1.1",
    releases: [
      {
        ocid: `ocds-e2e-bell-${id}`,
        id: `${id}-1`,
        date: now,
        tag: ["tender"],
        initiationType: "tender",
        buyer: { id: "ORG-7", name: "เทศบาลนครแจ้งเตือน" },
        parties: [{ id: "ORG-7", name: "เทศบาลนครแจ้งเตือน", roles: ["buyer"], address: { region: "เชียงใหม่" } }],
        planning: { budget: { amount: { amount: 3_250_000, currency: "THB" } } },
        tender: {
          id,
          title: `จัดซื้อ${WORD} สำหรับศูนย์บัญชาการ`,
          status: "active",
          procurementMethod: "open",
          procurementMethodDetails: "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)",
          mainProcurementCategory: "goods",
        },
      },
    ],
  };
}

export default [
  {
    name: "a saved search alerts live: count without reload, toast, dropdown, mark read, full page, settings",
    async fn(ctx) {
      const u = await ctx.createUser("belluser", { name: "ผู้รับแจ้ง เตือนไว", password: PASSWORD });
      const page = await ctx.newPage();
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");
      await visible(page.getByTestId("bell-button"));
      assert.equal(await page.getByTestId("bell-count").count(), 0);

      // Save the search over the API with the page's own session.
      const li = await ctx.api("POST", "/login", { username: u.username, password: PASSWORD });
      assert.equal(li.status, 200, li.text);
      const saved = await ctx.api("POST", "/to_do_search", { keyWord_Incl_And: [WORD], search_type: "normal" }, { authorization: `Bearer ${li.json.access_token}` });
      assert.equal(saved.status, 200, saved.text);

      // An operator ingests a matching project.
      const ops = await ctx.createUser("bellops", { domain: "ops.bidradar.test" });
      const oli = await ctx.api("POST", "/login", { username: ops.username, password: ops.password });
      const id = `6913${String(Date.now()).slice(-7)}`;
      const content = Buffer.from(JSON.stringify(release(id)), "utf8").toString("base64");
      const ing = await ctx.api("POST", "/admin/ingest", { source: "ocds", content }, { authorization: `Bearer ${oli.json.access_token}` });
      assert.equal(ing.status, 200, ing.text);

      // Live: the count appears and a toast names the project, no reload.
      await visible(page.getByTestId("bell-count"), 15_000);
      assert.equal(await page.getByTestId("bell-count").innerText(), "1");
      await visible(page.getByText(new RegExp(`จัดซื้อ${WORD}`)).first());
      await ctx.shot(page, "60-bell-live");

      await page.getByTestId("bell-button").click();
      const panel = page.getByTestId("bell-panel");
      await visible(panel.getByTestId("bell-item").first());
      assert.match(await panel.innerText(), /3,250,000\.00 บาท/);
      await ctx.shot(page, "61-bell-dropdown");
      await panel.getByTestId("bell-mark-read").first().click();
      await page.waitForFunction(() => !document.querySelector("[data-testid=bell-count]"));

      // The full page and its link to the project.
      await page.getByTestId("bell-see-all").click();
      await urlIs(page, "/notifications");
      await visible(page.getByTestId("notifications-page").getByTestId("bell-item").first());
      assert.match(await page.getByTestId("notifications-total").innerText(), /ยังไม่ได้อ่าน 0/);
      // The inbox is the customer's: no test button there (it lives on the settings page).
      assert.equal(await page.getByRole("button", { name: "ส่งการแจ้งเตือนทดสอบ" }).count(), 0);

      // Settings: turn search alerts off and keep it after a reload.
      await page.goto("/user-settings/notification-settings");
      const box = page.getByTestId("setting-notifySearchMatches");
      await visible(box);
      assert.equal(await box.isChecked(), true);
      await box.uncheck();
      await page.getByTestId("settings-save").click();
      await page.reload();
      await visible(page.getByTestId("setting-notifySearchMatches"));
      assert.equal(await page.getByTestId("setting-notifySearchMatches").isChecked(), false);

      // The settings page tests the bell: a test notification arrives live.
      await page.getByTestId("settings-test-notification").click();
      await toast(page, "ส่งการแจ้งเตือนทดสอบแล้ว");
      await visible(page.getByTestId("bell-count"), 15_000);
      assert.equal(await page.getByTestId("bell-count").innerText(), "1");
      await ctx.shot(page, "61-settings-test-notification");

      // A team's webhook at phone width: the secret shows once, a long
      // address and the secret wrap instead of scrolling sideways.
      await page.setViewportSize({ width: 360, height: 740 });
      await page.getByTestId("webhook-url").fill("http://127.0.0.1:9/" + "hooks/bidradar-alerts-".repeat(6));
      await page.getByTestId("webhook-save").click();
      await visible(page.getByTestId("webhook-secret"));
      assert.match(await page.getByTestId("webhook-secret").innerText(), /whsec_/);
      await visible(page.getByTestId("webhook-current"));
      const wideHook = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wideHook <= 0, `the webhook settings scroll sideways by ${wideHook}px at 360 px`);
      await ctx.shot(page, "61-webhook-phone");

      // Phone width: nothing scrolls sideways on the bell's screens.
      for (const path of ["/notifications", "/user-settings/notification-settings"]) {
        await page.goto(path);
        await visible(page.getByTestId("bell-button"));
        await page.getByTestId("bell-button").click();
        const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(wide <= 0, `${path} scrolls sideways by ${wide}px at 360 px`);
        await page.keyboard.press("Escape");
      }
      await ctx.shot(page, "62-notifications-phone");

      // The inbox's filters on a phone, by touch: the app's select and segmented control.
      const phone = await ctx.newPage({ viewport: { width: 360, height: 740 }, touch: true });
      await login(phone, u.username, PASSWORD);
      await phone.waitForURL((x) => x.pathname !== "/login");
      await phone.goto("/notifications");
      const inbox = phone.getByTestId("notifications-page");
      await visible(inbox.getByTestId("bell-item"));
      assert.equal(await inbox.getByTestId("bell-item").count(), 2);
      const items = () => phone.evaluate(() => document.querySelectorAll("[data-testid=notifications-page] [data-testid=bell-item]").length);
      await inbox.getByRole("group", { name: "สถานะ" }).getByRole("button", { name: "ยังไม่ได้อ่าน" }).tap();
      await phone.waitForFunction(() => document.querySelectorAll("[data-testid=notifications-page] [data-testid=bell-item]").length === 1);
      assert.match(await inbox.getByTestId("bell-item").innerText(), /การแจ้งเตือนทดสอบ/);
      await inbox.getByRole("group", { name: "สถานะ" }).getByRole("button", { name: "ทั้งหมด" }).tap();
      await inbox.getByTestId("filter-category").selectOption("search_match");
      await phone.waitForFunction(() => document.querySelectorAll("[data-testid=notifications-page] [data-testid=bell-item]").length === 1);
      assert.match(await inbox.getByTestId("bell-item").innerText(), new RegExp(WORD));
      assert.equal(await items(), 1);
      const wideInbox = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wideInbox <= 0, `the inbox's filters scroll sideways by ${wideInbox}px at 360 px`);
      await ctx.shot(phone, "63-notifications-filters-phone");
    },
  },
];
