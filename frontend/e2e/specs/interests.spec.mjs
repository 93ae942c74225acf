// Tracking in a real browser (issue 9): mark from search, follow in three
// states, comment and bid on the project page (the bid then on its search row), filter the listing by a mark,
// find it all under My projects, and the bid again on a fresh browser profile.
import fs from "node:fs";
import { assert, login, urlIs, visible } from "../support/harness.mjs";

const MARK = "ติดตามอีทูอี"; // only the projects seeded here carry it
const PASSWORD = "ประมูลงานรัฐ-2569";

function releases() {
  const out = [];
  for (let i = 1; i <= 3; i++) {
    const id = `6912000000${i}`;
    out.push({
      ocid: `ocds-e2e-int-${id}`,
      id: `${id}-1`,
      date: `2026-11-0${i}T10:00:00+07:00`,
      tag: ["planning", "tender"],
      initiationType: "tender",
      buyer: { id: "ORG-9", name: "เทศบาลตำบลบ้านติดตาม" },
      parties: [{ id: "ORG-9", name: "เทศบาลตำบลบ้านติดตาม", roles: ["buyer"], address: { region: "ขอนแก่น" } }],
      planning: { budget: { amount: { amount: 2_000_000, currency: "THB" } } },
      tender: {
        id,
        title: `จ้างปรับปรุงอาคาร${MARK} หลังที่ ${i}`,
        status: "active",
        value: { amount: 2_000_000, currency: "THB" },
        procurementMethod: "open",
        procurementMethodDetails: "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)",
        mainProcurementCategory: "works",
      },
      awards: [],
    });
  }
  return { uri: "https://example.test/e2e-interests.json", publishedDate: "2026-11-21T00:00:00Z", version: "1.1", releases: out };
}

async function seed(ctx) {
  const probe = await ctx.api("GET", `/gen-infor?keyWord_Incl_Or=${encodeURIComponent(MARK)}`);
  if (Number(probe.json?.pagination?.total ?? 0) >= 3) return;
  const u = await ctx.createUser("seedint", { domain: "ops.bidradar.test" });
  const li = await ctx.api("POST", "/login", { username: u.username, password: u.password });
  assert.equal(li.status, 200, li.text);
  const content = Buffer.from(JSON.stringify(releases()), "utf8").toString("base64");
  const r = await ctx.api("POST", "/admin/ingest", { source: "ocds", content }, { authorization: `Bearer ${li.json.access_token}` });
  assert.equal(r.status, 200, `ingest: ${r.text}`);
}

const row = (page, id) => page.locator(`[data-testid=result-row][data-project-id="${id}"]`);

export default [
  {
    name: "mark from search, follow cycle, comment and bid, filter by a mark, My projects, the bid on another browser",
    async fn(ctx) {
      await seed(ctx);
      const u = await ctx.createUser("tracker", { name: "ผู้ติดตาม ประมูลเก่ง", password: PASSWORD });
      const page = await ctx.newPage();
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");
      await page.goto(`/search?keyWord_Incl_Or=${encodeURIComponent(MARK)}`);
      const first = row(page, "69120000001");
      await visible(first);

      // Like from the row; it stays after a reload (the server has it).
      await first.getByTestId("mark-like").click();
      await page.waitForFunction(() => document.querySelector('[data-project-id="69120000001"] [data-testid=mark-like]')?.getAttribute("aria-pressed") === "true");
      // Follow cycles: off → following → following + 20 days.
      const follow = first.getByTestId("mark-follow");
      await follow.click();
      await visible(first.locator('[data-testid=mark-follow][aria-pressed="true"]'));
      await follow.click();
      await page.waitForFunction(() => /20/.test(document.querySelector('[data-project-id="69120000001"] [data-testid=mark-follow]')?.getAttribute("title") ?? ""));
      await page.reload();
      await visible(row(page, "69120000001").locator('[data-testid=mark-like][aria-pressed="true"]'));

      // Filter the listing by likes: only the liked project.
      await page.getByTestId("filter-like").click();
      await page.waitForURL((u) => new URL(u).searchParams.get("is_userLike") === "true");
      await page.waitForFunction(() => {
        const ids = [...document.querySelectorAll("[data-testid=result-row]")].map((e) => e.getAttribute("data-project-id"));
        return ids.length === 1 && ids[0] === "69120000001";
      });
      await ctx.shot(page, "50-listing-filter-like");

      // The project page: comment and bid.
      await page.goto("/project-details/69120000001");
      await visible(page.getByTestId("interest-panel"));
      await page.getByTestId("comment-input").fill("ตรวจสเปกลิฟต์ก่อนยื่น 👍");
      await page.getByTestId("comment-submit").click();
      await visible(page.getByTestId("comment").filter({ hasText: "ตรวจสเปกลิฟต์ก่อนยื่น 👍" }));
      await page.getByTestId("bid-percent").fill("5");
      assert.equal(await page.getByTestId("bid-price").inputValue(), "1,900,000");
      await page.getByTestId("bid-save").click();
      await visible(page.getByTestId("bid-updated"));
      assert.match(await page.getByTestId("bid-updated").innerText(), /25\d\d/); // Buddhist era
      await ctx.shot(page, "51-project-interest-panel", { fullPage: true });

      // The search row carries the bid at once.
      await page.goto(`/search?keyWord_Incl_Or=${encodeURIComponent(MARK)}`);
      const bid = await visible(row(page, "69120000001").getByTestId("result-bid"));
      assert.match(await bid.innerText(), /1,900,000\.00 บาท/);
      assert.match(await bid.innerText(), /5\.00%/);
      assert.equal(await row(page, "69120000002").getByTestId("result-bid").count(), 0);
      await row(page, "69120000001").scrollIntoViewIfNeeded();
      await ctx.shot(page, "52-search-row-bid");

      // My projects lists it with its marks.
      await page.goto("/my-projects");
      await visible(page.locator('[data-testid=my-row][data-project-id="69120000001"]'));
      assert.match(await page.getByTestId("tab-active").innerText(), /\(1\)/);
      // Export: CSV with Thai headers and the bid, Excel, and the calendar.
      const [csv] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
      assert.match(csv.suggestedFilename(), /\.csv$/);
      const text = fs.readFileSync(await csv.path(), "utf8");
      assert.ok(text.includes("รหัสโครงการ") && text.includes("69120000001") && text.includes("1900000"), text.slice(0, 400));
      const [xlsx] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-xlsx").click()]);
      assert.match(xlsx.suggestedFilename(), /\.xlsx$/);
      assert.equal(fs.readFileSync(await xlsx.path()).subarray(0, 2).toString(), "PK"); // a zip, as .xlsx is
      const [ics] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-ics").click()]);
      assert.match(fs.readFileSync(await ics.path(), "utf8"), /BEGIN:VEVENT[\s\S]*69120000001/);

      // Another browser profile: the bid comes from the server.
      const other = await ctx.newPage();
      await login(other, u.username, PASSWORD);
      await urlIs(other, "/");
      await other.goto("/project-details/69120000001");
      await visible(other.getByTestId("bid-panel"));
      await other.waitForFunction(() => document.querySelector("[data-testid=bid-price]")?.value === "1,900,000");
      assert.equal(await other.getByTestId("bid-percent").inputValue(), "5");
    },
  },
];
