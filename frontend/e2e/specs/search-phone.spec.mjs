// The search page and a project's page on a phone (360 px, touch): a tap on
// ค้นหา runs the search even when the typed keyword turns into a tag and the
// box grows; the count and first rows come into view; the mark buttons say
// what they are; the bid panel keeps the typed price and refuses a bad
// percent; the save toast names the search in glyphs the Thai fonts draw; a
// bid shows on its search row.
import { assert, login, urlIs, visible } from "../support/harness.mjs";

const MARK = "มือถืออีทูอี"; // only the projects seeded here carry it
const COMPUTERS = 4; // titles with คอมพิวเตอร์
const N = 12;
const NEWEST = "69130000012"; // first in a search by date; reference price 2,000,000.00 baht
const PASSWORD = "ประมูลงานรัฐ-2569";
const PHONE = { viewport: { width: 360, height: 780 }, hasTouch: true, isMobile: true };
const pad = (n) => String(n).padStart(2, "0");

function releasePackage() {
  const releases = [];
  for (let i = 1; i <= N; i++) {
    const id = `691300000${pad(i)}`;
    const title =
      i <= COMPUTERS
        ? `ซื้อครุภัณฑ์คอมพิวเตอร์ สำนักงานบ้าน${MARK} ชุดที่ ${i}`
        : `จ้างก่อสร้างอาคารเรียน โรงเรียนบ้าน${MARK} หลังที่ ${i}`;
    releases.push({
      ocid: `ocds-e2e-phone-${id}`,
      id: `${id}-1`,
      date: `2026-11-${pad(i)}T10:00:00+07:00`,
      tag: ["planning", "tender"],
      initiationType: "tender",
      buyer: { id: "ORG-P", name: "องค์การบริหารส่วนตำบลบ้านมือถือ" },
      parties: [{ id: "ORG-P", name: "องค์การบริหารส่วนตำบลบ้านมือถือ", roles: ["buyer"], address: { region: "ลำปาง" } }],
      planning: { budget: { amount: { amount: 2_100_000, currency: "THB" } } },
      tender: {
        id,
        title,
        status: "active",
        value: { amount: 2_000_000, currency: "THB" },
        procurementMethod: "open",
        procurementMethodDetails: "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)",
        mainProcurementCategory: i <= COMPUTERS ? "goods" : "works",
      },
      awards: [],
    });
  }
  return { uri: "https://example.test/e2e-phone.json", publishedDate: "2026-11-21T00:00:00Z", version: "1.1", releases };
}

async function seed(ctx) {
  const probe = await ctx.api("GET", `/gen-infor?keyWord_Incl_Or=${encodeURIComponent(MARK)}`);
  if (Number(probe.json?.pagination?.total ?? 0) >= N) return;
  const u = await ctx.createUser("seedphone", { domain: "ops.bidradar.test" });
  const li = await ctx.api("POST", "/login", { username: u.username, password: u.password });
  assert.equal(li.status, 200, li.text);
  const content = Buffer.from(JSON.stringify(releasePackage()), "utf8").toString("base64");
  const r = await ctx.api("POST", "/admin/ingest", { source: "ocds", content }, { authorization: `Bearer ${li.json.access_token}` });
  assert.equal(r.status, 200, `ingest: ${r.text}`);
}

/** The results for the current URL are on screen (not the previous ones kept while loading). */
const settled = (page) =>
  page.waitForFunction(() => {
    const sec = document.querySelector("section.results-section");
    return sec?.getAttribute("aria-busy") === "false" && !document.querySelector(".results-stale");
  });

/** The count and the first result row are inside the viewport (after any smooth scroll). */
async function resultsInView(page) {
  await page
    .waitForFunction(
      () => {
        const count = document.querySelector("[data-testid=results-count]")?.getBoundingClientRect();
        const row = document.querySelector("[data-testid=result-row]")?.getBoundingClientRect();
        return !!count && !!row && count.top >= 0 && count.bottom <= innerHeight && row.top < innerHeight - 40;
      },
      null,
      { timeout: 5000 },
    )
    .catch(async () => {
      const where = await page.evaluate(() => ({
        count: document.querySelector("[data-testid=results-count]")?.getBoundingClientRect().top,
        row: document.querySelector("[data-testid=result-row]")?.getBoundingClientRect().top,
        scrollY,
        innerHeight,
      }));
      assert.fail(`the count and first row are not in view after the search: ${JSON.stringify(where)}`);
    });
}

/** Search the seeded projects (12 rows, the keyword box empty), then type a long keyword into it. */
async function firstSearchThenType(page, keyword) {
  await page.goto(`/search?keyWord_Incl_And=${encodeURIComponent(MARK)}`);
  await visible(page.getByTestId("results-count").filter({ hasText: `พบ ${N} รายการ` }));
  await settled(page);
  const input = page.getByTestId("kw-or").getByRole("textbox");
  await input.tap();
  await page.keyboard.insertText(keyword);
}

const searched = (page, keyword) =>
  page.waitForURL((u) => new URL(u).searchParams.getAll("keyWord_Incl_Or").includes(keyword), { timeout: 5000 }).catch(() => {
    assert.fail(`the search did not run: still at ${page.url()}`);
  });

export default [
  {
    name: "phone: a long keyword typed after a search, ค้นหา tapped: the search runs, the button stays under the finger, the count and first rows come into view",
    async fn(ctx) {
      await seed(ctx);
      const page = await ctx.newPage(PHONE);
      await firstSearchThenType(page, "คอมพิวเตอร์");
      const button = page.getByTestId("search-submit");
      const before = await button.boundingBox();
      // The finger lands where the button is now; the keyword becomes a tag as the input loses focus.
      await page.touchscreen.tap(before.x + before.width / 2, before.y + before.height / 2);
      await searched(page, "คอมพิวเตอร์");
      await visible(page.getByTestId("results-count").filter({ hasText: `พบ ${COMPUTERS} รายการ` }));
      await settled(page);
      assert.equal(await page.getByTestId("result-row").count(), COMPUTERS);
      await resultsInView(page);
      const tags = await page.getByTestId("kw-or").getByTestId("tag").allInnerTexts();
      assert.deepEqual(
        tags.map((t) => t.trim()),
        ["คอมพิวเตอร์"],
      );
      await ctx.shot(page, "60-phone-search-tapped");
    },
  },
  {
    name: "phone: the keyboard's Enter runs the search and brings the count and first rows into view",
    async fn(ctx) {
      await seed(ctx);
      const page = await ctx.newPage(PHONE);
      await firstSearchThenType(page, "ก่อสร้างอาคาร");
      await page.keyboard.press("Enter");
      await searched(page, "ก่อสร้างอาคาร");
      await visible(page.getByTestId("results-count").filter({ hasText: `พบ ${N - COMPUTERS} รายการ` }));
      await resultsInView(page);
      // The keyboard closes: nothing in the form keeps the focus.
      assert.equal(await page.evaluate(() => !!document.activeElement?.closest("[data-testid=criteria-form]")), false);
    },
  },
  {
    name: "phone, signed in: the mark buttons say what they are, following + 20 days reads '+ สรุป 20 วัน' on screen; the save toast names the search",
    async fn(ctx) {
      await seed(ctx);
      const u = await ctx.createUser("phonemarks", { name: "มานี ถือมือถือ", password: PASSWORD });
      const page = await ctx.newPage(PHONE);
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");
      await page.goto(`/search?keyWord_Incl_Or=${encodeURIComponent(MARK)}`);
      const row = page.locator(`[data-testid=result-row][data-project-id="${NEWEST}"]`);
      await visible(row);
      const marks = row.getByTestId("marks");
      // Every mark shows a word on screen (innerText is what is rendered), inside the row.
      const shown = async () => Object.fromEntries(await Promise.all(["like", "follow", "bid", "archive"].map(async (k) => [k, (await marks.getByTestId(`mark-${k}`).innerText()).trim()])));
      const labels = await shown();
      for (const [k, text] of Object.entries(labels)) assert.ok(text.length > 0, `mark-${k} shows no label on a phone: ${JSON.stringify(labels)}`);
      const fits = () =>
        row.evaluate((r) => {
          const box = r.getBoundingClientRect();
          return [...r.querySelectorAll("[data-testid^=mark-]")].every((b) => {
            const m = b.getBoundingClientRect();
            return m.left >= box.left && m.right <= box.right && b.scrollWidth <= b.clientWidth + 1;
          });
        });
      assert.ok(await fits(), "the mark buttons fit the row");
      // Follow: off → following → following + 20 days, each state in words.
      const follow = marks.getByTestId("mark-follow");
      await follow.tap();
      await visible(row.locator('[data-testid=mark-follow][aria-pressed="true"]'));
      await follow.tap();
      await page.waitForFunction((id) => /20/.test(document.querySelector(`[data-project-id="${id}"] [data-testid=mark-follow]`)?.getAttribute("aria-label") ?? ""), NEWEST);
      assert.match(await follow.innerText(), /\+ สรุป 20 วัน/);
      assert.ok(await fits(), "the mark buttons fit the row with following + 20 days");
      await ctx.shot(page, "61-phone-marks");

      // Save the search: the toast names it, in glyphs the Thai fonts have.
      await page.getByTestId("save-criteria").tap();
      const dialog = await visible(page.getByTestId("save-dialog"));
      await dialog.getByPlaceholder("เช่น งานถนน ภาคอีสาน").fill("งานมือถือ ลำปาง");
      await dialog.getByTestId("save-confirm").tap();
      const t = await visible(page.getByTestId("toast").filter({ hasText: "งานมือถือ ลำปาง" }));
      const text = (await t.innerText()).trim();
      assert.doesNotMatch(text, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, `a UUID in the toast: ${text}`);
      // Thai, ASCII and the punctuation the Thai fonts draw: nothing that renders as a missing glyph (✅ did).
      assert.match(text, /^[\u0E00-\u0E7F\u0020-\u007E\u00B7\u2013\u2014\u201C\u201D\u2026\s]+$/, `a character without a glyph in the toast: ${JSON.stringify(text)}`);
      await ctx.shot(page, "62-phone-save-toast");
    },
  },
  {
    name: "phone, signed in: the bid panel refuses a percent outside 0–100 before saving, in Thai; a typed price 1,234,567.89 stays exactly that after save and reload",
    async fn(ctx) {
      await seed(ctx);
      const u = await ctx.createUser("phonebid", { name: "ประมูล ถือมือถือ", password: PASSWORD });
      const page = await ctx.newPage(PHONE);
      const saves = [];
      page.on("request", (r) => r.url().includes("UpdateInterest") && saves.push(r.postData() ?? ""));
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");
      await page.goto(`/project-details/${NEWEST}`);
      const panel = await visible(page.getByTestId("bid-panel"));
      await visible(panel.getByText("2,000,000.00 บาท"));
      const price = panel.getByTestId("bid-price");
      const percent = panel.getByTestId("bid-percent");

      // A percent over 100: a Thai message tied to the field, the price left alone, nothing saved.
      await percent.tap();
      await page.keyboard.insertText("150");
      const describedBy = await percent.getAttribute("aria-describedby");
      assert.ok(describedBy, "the percent field points to its message (aria-describedby)");
      const message = page.locator(`[id="${describedBy}"]`);
      await visible(message);
      assert.match(await message.innerText(), /^[\u0E00-\u0E7F0-9\s.–%()]+$/, "the message is Thai");
      assert.match(await message.innerText(), /100/);
      assert.equal(await price.inputValue(), "", "no price computed from a percent over 100");
      await panel.getByTestId("bid-save").tap({ force: true });
      await page.keyboard.press("Enter");
      await page.waitForTimeout(300);
      assert.deepEqual(saves, [], "nothing saved with a percent over 100");
      await ctx.shot(page, "63-phone-bid-percent-refused");

      // A price over the reference price: said before saving.
      await percent.fill("");
      await price.tap();
      await page.keyboard.insertText("2500000");
      await visible(panel.getByText("ราคาเสนอสูงกว่าราคากลาง"));
      assert.ok(await panel.getByTestId("bid-save").isDisabled());
      await price.fill("");

      // The price typed as a bid manager types it: it is the price saved, shown and reloaded.
      await price.tap();
      await page.keyboard.insertText("1,234,567.89");
      assert.equal(await percent.inputValue(), "38.27");
      // Touching the percent and typing it back to 38.27 must not round the price to 1,234,600.
      await percent.tap();
      await page.keyboard.press("Backspace");
      assert.equal(await price.inputValue(), "1,236,000");
      await page.keyboard.insertText("7");
      assert.equal(await price.inputValue(), "1,234,567.89");
      await panel.getByTestId("bid-save").tap();
      await visible(panel.getByTestId("bid-updated"));
      assert.equal(saves.length, 1);
      assert.equal(await price.inputValue(), "1,234,567.89");
      await page.reload();
      await visible(page.getByTestId("bid-updated"));
      await page.waitForFunction(() => document.querySelector("[data-testid=bid-price]")?.value !== "");
      assert.equal(await page.getByTestId("bid-price").inputValue(), "1,234,567.89");
      assert.equal(await page.getByTestId("bid-percent").inputValue(), "38.27");
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wide <= 0, `the project page scrolls sideways by ${wide}px at 360 px`);
      await page.getByTestId("bid-panel").scrollIntoViewIfNeeded();
      await ctx.shot(page, "64-phone-bid-saved");
    },
  },
  {
    name: "phone, signed in: a bid set elsewhere shows on its search row at once, exact to the satang, within 360 px; a visitor's row has none",
    async fn(ctx) {
      await seed(ctx);
      const u = await ctx.createUser("phonerowbid", { name: "ราคา บนแถว", password: PASSWORD });
      const li = await ctx.api("POST", "/login", { username: u.username, password: PASSWORD });
      assert.equal(li.status, 200, li.text);
      const set = await ctx.api("PATCH", `/userInterests/${NEWEST}`, { bidPrice: 1234567.89 }, { authorization: `Bearer ${li.json.access_token}` });
      assert.equal(set.status, 200, set.text);
      const page = await ctx.newPage(PHONE);
      await login(page, u.username, PASSWORD);
      await urlIs(page, "/");
      await page.goto(`/search?keyWord_Incl_Or=${encodeURIComponent(MARK)}`);
      const bid = await visible(page.locator(`[data-testid=result-row][data-project-id="${NEWEST}"] [data-testid=result-bid]`));
      assert.match(await bid.innerText(), /1,234,567\.89 บาท/);
      assert.match(await bid.innerText(), /38\.27%/);
      assert.equal(await page.getByTestId("result-bid").count(), 1, "only the project with a bid shows one");
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wide <= 0, `the search page scrolls sideways by ${wide}px at 360 px`);
      await bid.scrollIntoViewIfNeeded();
      await ctx.shot(page, "65-phone-search-row-bid");

      const visitor = await ctx.newPage(PHONE);
      await visitor.goto(`/search?keyWord_Incl_Or=${encodeURIComponent(MARK)}`);
      await visible(visitor.locator(`[data-testid=result-row][data-project-id="${NEWEST}"]`));
      assert.equal(await visitor.getByTestId("result-bid").count(), 0);
    },
  },
];
