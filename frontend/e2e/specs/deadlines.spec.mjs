// Deadlines everywhere (issue 22): the last day to submit bids and the end
// of the hearing with the days left (Bangkok) on search rows, the project
// page and My projects; the deadline order and "closing this week" in both
// lists; the calendar link with its copy button; the reminder's switch.
// Desktop, and a 360 px phone with touch.
import { assert, login, urlIs, visible } from "../support/harness.mjs";

const MARK = "ปิดรับอีทูอี"; // only the projects seeded here carry it
const PASSWORD = "ประมูลงานรัฐ-2569";
const SOON = "69122000001"; // bids close in 2 days, hearing ends tomorrow
const LATER = "69122000002"; // bids close in 12 days
const CLOSED = "69122000003"; // bids closed yesterday

const bangkokDay = (n) => {
  const d = new Date(Date.now() + 7 * 3600_000 + n * 86_400_000);
  return d.toISOString().slice(0, 10);
};

function release(id, i, due, hearing) {
  return {
    ocid: `ocds-e2e-dl-${id}`,
    id: `${id}-1`,
    date: `${bangkokDay(-5 - i)}T10:00:00+07:00`,
    tag: ["tender"],
    initiationType: "tender",
    buyer: { id: "ORG-22", name: "องค์การบริหารส่วนตำบลวันปิด" },
    parties: [{ id: "ORG-22", name: "องค์การบริหารส่วนตำบลวันปิด", roles: ["buyer"], address: { region: "ขอนแก่น" } }],
    planning: { budget: { amount: { amount: 1_500_000, currency: "THB" } } },
    tender: {
      id,
      title: `จ้างก่อสร้างรางระบายน้ำ${MARK} สายที่ ${i}`,
      status: "active",
      procurementMethod: "open",
      procurementMethodDetails: "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)",
      mainProcurementCategory: "works",
      tenderPeriod: { endDate: `${due}T16:30:00+07:00` },
      ...(hearing ? { enquiryPeriod: { endDate: `${hearing}T16:30:00+07:00` } } : {}),
    },
    awards: [],
  };
}

async function seed(ctx) {
  const probe = await ctx.api("GET", `/gen-infor?keyword=${encodeURIComponent(MARK)}`);
  if (Number(probe.json?.pagination?.total ?? 0) >= 3) return;
  const u = await ctx.createUser("seeddl", { domain: "ops.bidradar.test" });
  const li = await ctx.api("POST", "/login", { username: u.username, password: u.password });
  assert.equal(li.status, 200, li.text);
  const pkg = {
    uri: "https://example.test/e2e-deadlines.json",
    publishedDate: `${bangkokDay(0)}T00:00:00Z`,
    version: "1.1",
    releases: [release(SOON, 1, bangkokDay(2), bangkokDay(1)), release(LATER, 2, bangkokDay(12)), release(CLOSED, 3, bangkokDay(-1))],
  };
  const content = Buffer.from(JSON.stringify(pkg), "utf8").toString("base64");
  const r = await ctx.api("POST", "/admin/ingest", { source: "ocds", content }, { authorization: `Bearer ${li.json.access_token}` });
  assert.equal(r.status, 200, `ingest: ${r.text}`);
}

/** A user who follows SOON and CLOSED and bids on LATER. */
async function tracker(ctx, prefix) {
  const u = await ctx.createUser(prefix, { password: PASSWORD });
  const li = await ctx.api("POST", "/login", { username: u.username, password: PASSWORD });
  const auth = { authorization: `Bearer ${li.json.access_token}` };
  for (const [id, body] of [
    [CLOSED, { is_interestToStepChk: true }],
    [LATER, { is_InterestToBid: true }],
    [SOON, { is_interestToStepChk: true }],
  ]) {
    const r = await ctx.api("PATCH", `/userInterests/${id}`, body, auth);
    assert.equal(r.status, 200, r.text);
  }
  return u;
}

const rowIds = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.getAttribute("data-project-id")));
const waitIds = (page, sel, want) =>
  page.waitForFunction(
    ([s, w]) => [...document.querySelectorAll(s)].map((e) => e.getAttribute("data-project-id")).join(",") === w,
    [sel, want.join(",")],
  );
/** A locator's text on one line (the badge's parts are flex items: innerText breaks between them). */
const text = async (locator) => (await locator.innerText()).replace(/\s+/g, " ");
const noSidewaysScroll = (page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

export default [
  {
    name: "desktop: deadlines on rows, details and My projects; deadline order and closing this week; calendar link; reminder switch",
    async fn(ctx) {
      await seed(ctx);
      const u = await tracker(ctx, "deadliner");
      const page = await ctx.newPage();
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");

      // Search rows: days left, the last day, closed.
      await page.goto(`/search?keyWord_Incl_Or=${encodeURIComponent(MARK)}`);
      const soon = page.locator(`[data-testid=result-row][data-project-id="${SOON}"]`);
      await visible(soon.getByTestId("deadline-submission"));
      assert.match(await text(soon.getByTestId("deadline-submission")), /ยื่นข้อเสนอถึง .*25\d\d.*เหลือ 2 วัน/);
      assert.match(await text(soon.getByTestId("deadline-hearing")), /รับฟังคำวิจารณ์ถึง .*เหลือ 1 วัน/);
      assert.match(
        await text(page.locator(`[data-testid=result-row][data-project-id="${CLOSED}"] [data-testid=deadline-submission]`)),
        /ปิดรับแล้ว/,
      );
      // Deadline order: upcoming soonest first, the closed one after.
      await page.getByTestId("sort-select").selectOption("deadline");
      await page.waitForURL((x) => new URL(x).searchParams.get("sort") === "deadline");
      await waitIds(page, "[data-testid=result-row]", [SOON, LATER, CLOSED]);
      // Closing this week: only the one closing in 2 days.
      await page.getByTestId("closing-week").click();
      await page.waitForURL((x) => new URL(x).searchParams.get("closing_within_days") === "7");
      await waitIds(page, "[data-testid=result-row]", [SOON]);
      await ctx.shot(page, "90-search-deadlines-desktop");

      // The project page.
      await page.goto(`/project-details/${SOON}`);
      await visible(page.getByTestId("pd-deadlines"));
      assert.match(await text(page.getByTestId("pd-deadlines")), /เหลือ 2 วัน/);
      assert.match(await text(page.getByTestId("pd-submission-due")), /25\d\d/);
      await ctx.shot(page, "91-details-deadlines-desktop");

      // My projects: rows with deadlines, by deadline, closing this week.
      await page.goto("/my-projects");
      const my = "[data-testid=my-row]";
      await visible(page.locator(`${my}[data-project-id="${SOON}"] [data-testid=deadline-submission]`));
      assert.deepEqual((await rowIds(page, my)).sort(), [SOON, LATER, CLOSED].sort());
      await page.getByTestId("my-sort").selectOption("deadline");
      await waitIds(page, my, [SOON, LATER, CLOSED]);
      await page.getByTestId("my-closing-week").click();
      await waitIds(page, my, [SOON]);
      await page.getByTestId("my-closing-week").click();
      await waitIds(page, my, [SOON, LATER, CLOSED]);

      // The calendar link: made, shown once, copied, served as text/calendar.
      await page.getByTestId("calendar-feed-make").click();
      await visible(page.getByTestId("calendar-feed-url"));
      const url = await page.getByTestId("calendar-feed-url").inputValue();
      assert.match(url, /\/app\/backend\/api\/v1\/calendar\/[A-Za-z0-9_-]{43}\.ics$/);
      await page.getByTestId("calendar-feed-copy").click();
      await visible(page.getByText("คัดลอกลิงก์ปฏิทินแล้ว"));
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
      const feed = await fetch(url);
      assert.equal(feed.headers.get("content-type"), "text/calendar; charset=utf-8");
      const ics = (await feed.text()).replaceAll("\r\n ", "");
      assert.ok(ics.includes(`UID:${SOON}-submission@bidradar`) && ics.includes(`UID:${LATER}-submission@bidradar`), ics.slice(0, 600));
      await ctx.shot(page, "92-my-projects-deadlines-desktop", { fullPage: true });
      await page.reload();
      await page.waitForFunction(() => /สร้างเมื่อ/.test(document.querySelector("[data-testid=calendar-feed-state]")?.textContent ?? ""));
      await page.getByTestId("calendar-feed-revoke").click();
      await page.waitForFunction(() => /ยังไม่ได้สร้าง/.test(document.querySelector("[data-testid=calendar-feed-state]")?.textContent ?? ""));
      assert.equal((await fetch(url)).status, 404);

      // The reminder the day before: shown, and switchable.
      await page.goto("/user-settings/notification-settings");
      const sw = page.getByTestId("setting-notifyDeadlines");
      await visible(sw);
      assert.ok(await sw.isChecked());
      assert.match(await text(page.locator("label", { has: sw })), /เตือนล่วงหน้า 1 วัน/);
      await sw.uncheck();
      await page.getByTestId("settings-save").click();
      await visible(page.getByText("บันทึกการตั้งค่าการแจ้งเตือนแล้ว"));
      await page.reload();
      await visible(page.getByTestId("setting-notifyDeadlines"));
      assert.equal(await page.getByTestId("setting-notifyDeadlines").isChecked(), false);
      await ctx.shot(page, "93-settings-deadline-reminder-desktop");
    },
  },
  {
    name: "phone 360 px (touch): deadlines on a row, on details and on My projects; closing this week",
    async fn(ctx) {
      await seed(ctx);
      const u = await tracker(ctx, "deadphone");
      const page = await ctx.newPage({ viewport: { width: 360, height: 780 }, touch: true });
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");

      await page.goto(`/search?keyWord_Incl_Or=${encodeURIComponent(MARK)}&sort=deadline`);
      await waitIds(page, "[data-testid=result-row]", [SOON, LATER, CLOSED]);
      const soon = page.locator(`[data-testid=result-row][data-project-id="${SOON}"]`);
      assert.match(await text(soon.getByTestId("deadline-submission")), /เหลือ 2 วัน/);
      await page.getByTestId("closing-week").tap();
      await waitIds(page, "[data-testid=result-row]", [SOON]);
      assert.ok(await noSidewaysScroll(page), "search scrolls sideways at 360 px");
      await ctx.shot(page, "94-search-deadlines-phone");

      await page.goto(`/project-details/${SOON}`);
      await visible(page.getByTestId("pd-deadlines"));
      assert.match(await text(page.getByTestId("pd-deadlines")), /เหลือ 2 วัน/);
      assert.ok(await noSidewaysScroll(page), "details scroll sideways at 360 px");
      await ctx.shot(page, "95-details-deadlines-phone");

      await page.goto("/my-projects");
      await visible(page.locator(`[data-testid=my-row][data-project-id="${SOON}"] [data-testid=deadline-submission]`));
      await page.getByTestId("my-closing-week").tap();
      await waitIds(page, "[data-testid=my-row]", [SOON]);
      await page.getByTestId("calendar-feed-make").tap();
      await visible(page.getByTestId("calendar-feed-url"));
      assert.ok(await noSidewaysScroll(page), "My projects scrolls sideways at 360 px");
      await ctx.shot(page, "96-my-projects-deadlines-phone", { fullPage: true });
    },
  },
];
