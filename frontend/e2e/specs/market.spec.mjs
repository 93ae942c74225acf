// The market in a real browser (issue 24): awards imported from rows in the
// data.go.th contract CSV's own format; the market page's figures equal an
// oracle computed here over the same rows (docs/market.md#definitions); a
// top winner's link opens its supplier page; the simulator on a project
// shows the server's percentile rank for a typed bid; a watched competitor's
// new award reaches the bell live; lower plans see the way to the plans; the
// supplier search (a Thai name, a tax id) opens a supplier and the agency
// page of OCDS awards whose buyer carries its e-GP code.
// At 1280 px and at 360 px with touch (tap), no sideways scroll.
import { assert, login, urlIs, visible } from "../support/harness.mjs";

const PASSWORD = "ประมูลงานรัฐ-2569";
const WORD = "ขุดลอกคลองตลาดอีทูอี"; // only the awards imported here carry it
const PHONE = { viewport: { width: 360, height: 780 }, touch: true };
const fmt2 = (x) => new Intl.NumberFormat("th-TH", { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(x);
const pct = (x) => `${x < 0 ? "−" : ""}${fmt2(Math.abs(x))}%`;

/** A 13-digit tax id with its check digit (docs/market.md#tax-ids). */
function taxId(n) {
  const d = `0${10557000000 + n}`; // 12 digits, then the check digit
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(d[i]) * (13 - i);
  return d + String((11 - (sum % 11)) % 10);
}

const RUN = String(Date.now()).slice(-5);
const projectId = (i) => `68${RUN}${String(i).padStart(4, "0")}`;

const A = { tax: taxId(1), name: "บริษัท ขุดลอกรุ่งเรือง จำกัด" };
const B = { tax: taxId(2), name: "ห้างหุ้นส่วนจำกัด คลองใส การโยธา" };
const C = { tax: taxId(3), name: "บริษัท ทางน้ำไทย จำกัด" };
// A spreadsheet-damaged id: kept as published, never identity; grouped by name.
const D = { tax: "1.05559E+11", name: "ห้างหุ้นส่วนจำกัด เลขเพี้ยน ก่อสร้าง" };

/** 24 awards with both prices (discounts in percent, some negative) and 2 without a reference price. */
const DISCOUNTS = [-2, 0.5, 1, 2, 3, 3.5, 4, 5, 5.5, 6, 7, 7.5, 8, 9, 10, 11, 12, 12.5, 14, 15, 17, 19, 22, 25];
const WINNER_OF = (i) => (i < 8 ? A : i < 14 ? B : i < 19 ? C : i < 22 ? D : A);

function awards() {
  const rows = DISCOUNTS.map((d, i) => {
    const ref = 1_000_000 + 20_000 * i;
    return { id: projectId(i + 1), name: `จ้างเหมา${WORD} สายที่ ${i + 1}`, ref, agreed: Math.round(ref * (1 - d / 100)), year: i % 2 ? 2568 : 2567, w: WINNER_OF(i) };
  });
  rows.push({ id: projectId(25), name: `จ้างเหมา${WORD} สายที่ 25`, ref: 0, agreed: 480_000, year: 2568, w: A });
  rows.push({ id: projectId(26), name: `จ้างเหมา${WORD} สายที่ 26`, ref: 0, agreed: 510_000, year: 2568, w: B });
  return rows;
}

const HEADER =
  "_id,ลำดับ,รหัสโครงการ,ชื่อโครงการ,ชื่อประเภทโครงการ,ชื่อหน่วยงาน,ชื่อหน่วยงานย่อย,วิธีจัดซื้อฯ,กลุ่มวิธีจัดซื้อฯ,วันที่ประกาศ,งบประมาณ(บาท),ราคากลาง(บาท),ราคาตกลงซื้อ/จ้าง,ปีงบประมาณ,วันที่เกิดรายการ,จังหวัด,จังหวัด (Eng),เขต/อำเภอ,เขต/อำเภอ (Eng),แขวง/ตำบล,แขวง/ตำบล (Eng),สถานะโครงการ,พิกัดของโครงการ,ละติจูดโครงการ,ลองจิจูดโครงการ,เลขนิติบุคคล,ชื่อผู้ชนะ,เลขที่สัญญา,วันที่ลงนามสัญญา,วันที่สิ้นสุดสัญญา,งบสัญญา(บาท),สถานะสัญญา";

/** Rows of the data.go.th contract CSV (its 32 columns), as the importer reads them. */
function contractCSV(rows) {
  const lines = rows.map((r, i) => {
    const budget = r.ref || r.agreed;
    const ref = r.ref ? String(r.ref) : "";
    const yy = String(r.year).slice(-2);
    return `${i + 1},${i + 1},${r.id},${r.name},จ้างก่อสร้าง,องค์การบริหารส่วนตำบลตลาดอีทูอี,-,เฉพาะเจาะจง,วิธีการจัดหา ประกาศเชิญชวนทั่วไป คัดเลือก เฉพาะเจาะจง,17 ม.ค. ${yy},${budget},${ref},${r.agreed},${r.year},-,ขอนแก่น,Khon Kaen,-,-,-,-,ระหว่างดำเนินการ,-,-,-,${r.w.tax},${r.w.name},ส.${i + 1}/${r.year},1 ก.พ. ${yy},1 ต.ค. ${yy},${r.agreed},ระหว่างดำเนินการ`;
  });
  return `${HEADER}\n${lines.join("\n")}\n`;
}

/** PostgreSQL percentile_cont: linear interpolation between order statistics. */
function percentileCont(sorted, f) {
  const pos = f * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}
const round2 = (x) => Math.sign(x) * Math.round(Math.abs(x) * 100 + 1e-9) / 100;

/** The oracle: every figure the market page shows for WORD, from the rows imported. */
function oracle(rows) {
  const ds = rows.filter((r) => r.ref > 0 && r.agreed > 0).map((r) => ((r.ref - r.agreed) / r.ref) * 100).sort((a, b) => a - b);
  const p = (f) => round2(percentileCont(ds, f));
  const wins = new Map();
  for (const r of rows) wins.set(r.w.name, (wins.get(r.w.name) ?? 0) + 1);
  const top = [...wins.entries()].sort((a, b) => b[1] - a[1])[0];
  return { n: ds.length, without: rows.length - ds.length, p10: p(0.1), p25: p(0.25), p50: p(0.5), p75: p(0.75), p90: p(0.9), mean: round2(ds.reduce((s, d) => s + d, 0) / ds.length), top };
}

async function operator(ctx) {
  const ops = await ctx.createUser("marketops", { domain: "ops.bidradar.test" });
  const li = await ctx.api("POST", "/login", { username: ops.username, password: ops.password });
  assert.equal(li.status, 200, li.text);
  return { authorization: `Bearer ${li.json.access_token}` };
}

async function ingestCSV(ctx, auth, csv) {
  const content = Buffer.from(csv, "utf8").toString("base64");
  const r = await ctx.api("POST", "/admin/ingest", { source: "csv", content }, auth);
  assert.equal(r.status, 200, `ingest: ${r.text}`);
}

let seeded = null;
/** The awards, once per run (each test of this file reads them). */
async function seed(ctx) {
  if (seeded) return seeded;
  const rows = awards();
  await ingestCSV(ctx, await operator(ctx), contractCSV(rows));
  seeded = rows;
  return rows;
}

/** A user on a paid tier through the local checkout (receipt only), signed in on page. */
async function userOn(ctx, page, tier, prefix) {
  const u = await ctx.createUser(prefix, { password: PASSWORD });
  const li = await ctx.api("POST", "/login", { username: u.username, password: PASSWORD });
  const auth = { authorization: `Bearer ${li.json.access_token}` };
  if (tier !== "free") {
    const co = await ctx.api("POST", "/payment/checkout", { tier, period: "monthly", method: "card", receipt_only: true }, auth);
    assert.equal(co.status, 200, co.text);
    const done = await ctx.api("POST", `/payment/local/${co.json.session_id}/complete`, { outcome: "paid" }, auth);
    assert.equal(done.status, 200, done.text);
  }
  if (page) {
    await login(page, u.username, PASSWORD);
    await urlIs(page, "/");
  }
  return { u, auth };
}

async function noSidewaysScroll(page, what) {
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wide <= 0, `${what} scrolls sideways by ${wide}px`);
}

const text = async (loc) => (await visible(loc)).innerText();

/** Reloads until the market page shows n projects (the market service builds its awards from the import's events). */
async function marketShows(page, url, n) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    await page.goto(url);
    const tile = await visible(page.getByTestId("mk-n").or(page.getByTestId("mk-empty")));
    if ((await page.getByTestId("mk-n").count()) && (await tile.innerText()) === String(n)) return;
    if (Date.now() > deadline) throw new Error(`the market page never showed n = ${n}`);
    await page.waitForTimeout(1000);
  }
}

/** The agency of the OCDS awards: an e-GP department code of its own this run (docs/market.md#agency-codes). */
const AGENCY = { code: `77${RUN}`, name: `สำนักงานทดสอบตลาดอีทูอี ${RUN}` };
const E = { tax: taxId(4), name: "บริษัท ค้นหาผู้ชนะอีทูอี จำกัด" };

/** OCDS releases (a package, as data.go.th and our export write it) of n awards of AGENCY won by E; the buyer id carries the code. */
function ocdsPackage(n) {
  const releases = [];
  for (let i = 0; i < n; i++) {
    const id = projectId(50 + i);
    const ref = 2_000_000 + 50_000 * i;
    const agreed = Math.round(ref * (1 - (3 + i) / 100));
    releases.push({
      ocid: `ocds-e2e-${id}`,
      id: `${id}-award-1`,
      date: "2025-03-10T09:00:00+07:00",
      tag: ["award"],
      initiationType: "tender",
      parties: [
        { id: `TH-EGP-${AGENCY.code}`, name: AGENCY.name, roles: ["buyer", "procuringEntity"], address: { region: "ขอนแก่น" } },
        { id: `TH-TIN-${E.tax}`, name: E.name, identifier: { scheme: "TH-DBD", id: E.tax }, roles: ["supplier"] },
      ],
      buyer: { id: `TH-EGP-${AGENCY.code}`, name: AGENCY.name },
      tender: {
        id,
        title: `จ้างก่อสร้างอาคารอีทูอี หลังที่ ${i + 1}`,
        value: { amount: ref, currency: "THB" },
        procurementMethod: "open",
        procurementMethodDetails: "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)",
        mainProcurementCategory: "works",
      },
      awards: [{ id: "a1", status: "active", value: { amount: agreed, currency: "THB" }, suppliers: [{ id: `TH-TIN-${E.tax}`, name: E.name }] }],
    });
  }
  return { uri: "https://example.org/ocds/e2e.json", version: "1.1", publishedDate: "2025-03-10T10:00:00+07:00", releases };
}

let agencySeeded = false;
/** The OCDS awards of AGENCY, once per run. */
async function seedAgency(ctx) {
  if (agencySeeded) return;
  const content = Buffer.from(JSON.stringify(ocdsPackage(AGENCY_AWARDS)), "utf8").toString("base64");
  const r = await ctx.api("POST", "/admin/ingest", { source: "ocds", content }, await operator(ctx));
  assert.equal(r.status, 200, `ingest ocds: ${r.text}`);
  agencySeeded = true;
}
const AGENCY_AWARDS = 5;

/** Reloads the supplier search until q finds E (the market builds suppliers from the import's events). */
async function searchFinds(page, q) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    await page.goto(`/market/suppliers?q=${encodeURIComponent(q)}`);
    await visible(page.getByTestId("mk-supplier-results").or(page.getByTestId("mk-supplier-empty")));
    if (await page.getByTestId("mk-supplier-row").filter({ hasText: E.name }).count()) return;
    if (Date.now() > deadline) throw new Error(`the supplier search never found ${q}`);
    await page.waitForTimeout(1000);
  }
}

/** The supplier search by a Thai name and by a tax id, a result's page, and its agency's page, clicked or tapped. */
async function searchToAgency(ctx, page, press, shot) {
  await searchFinds(page, "ค้นหาผู้ชนะ");
  // Typed in the form: a Thai name (part of it), then a tax id.
  await page.goto("/market/suppliers");
  await page.getByTestId("mk-supplier-q").fill("ค้นหาผู้ชนะอีทูอี");
  await press(page.getByTestId("mk-supplier-submit"));
  const byName = await visible(page.getByTestId("mk-supplier-row").filter({ hasText: E.name }));
  assert.match(await byName.innerText(), new RegExp(`ชนะ ${AGENCY_AWARDS}`));
  await page.getByTestId("mk-supplier-q").fill(E.tax);
  await press(page.getByTestId("mk-supplier-submit"));
  await page.waitForURL((u) => u.searchParams.get("q") === E.tax);
  await visible(page.getByTestId("mk-supplier-row").filter({ hasText: E.name }));
  assert.equal(await page.getByTestId("mk-supplier-row").count(), 1);
  await noSidewaysScroll(page, `the supplier search (${shot})`);
  await ctx.shot(page, `9g-market-supplier-search-${shot}`, { fullPage: true });
  await press(page.getByTestId("mk-supplier-row").getByRole("link", { name: E.name }));
  await urlIs(page, `/market/suppliers/${E.tax}`);
  assert.equal(await text(page.getByTestId("mk-supplier-name")), E.name);
  assert.equal(await text(page.getByTestId("mk-supplier-wins")), String(AGENCY_AWARDS));
  // The agency it won at, by its e-GP code.
  const agencyLink = page.getByTestId("mk-supplier-agencies").getByRole("link", { name: AGENCY.name });
  await agencyLink.scrollIntoViewIfNeeded();
  await press(agencyLink);
  await urlIs(page, `/market/agencies/${AGENCY.code}`);
  await visible(page.getByTestId("agency-page"));
  assert.equal(await text(page.getByTestId("mk-agency-name")), AGENCY.name);
  assert.equal(await text(page.getByTestId("mk-agency-projects")), String(AGENCY_AWARDS));
  assert.match(await page.getByTestId("mk-agency-methods").innerText(), /100/);
  assert.match(await page.getByTestId("agency-page").innerText(), new RegExp(E.name));
  await noSidewaysScroll(page, `the agency page (${shot})`);
  await ctx.shot(page, `9h-market-agency-${shot}`, { fullPage: true });
}

export default [
  {
    name: "market: the supplier search by a Thai name and by a tax id opens a supplier, and its agency's page, at 1280 and 360 px (tap)",
    async fn(ctx) {
      await seedAgency(ctx);
      const page = await ctx.newPage();
      await userOn(ctx, page, "pro", "marketsearch");
      await searchToAgency(ctx, page, (l) => l.click(), "1280");
      const phone = await ctx.newPage(PHONE);
      await login(phone, (await userOn(ctx, null, "pro", "marketsearchphone")).u.username, PASSWORD);
      await urlIs(phone, "/");
      await searchToAgency(ctx, phone, (l) => l.tap(), "360");
    },
  },
  {
    name: "market: the page's figures equal the oracle; a winner's link opens its supplier page; 1280 and 360 px",
    async fn(ctx) {
      const rows = await seed(ctx);
      const want = oracle(rows);
      const page = await ctx.newPage();
      await userOn(ctx, page, "pro", "marketpro");
      // ตลาด is in the signed-in menu.
      await page.getByRole("navigation", { name: "เมนูหลัก" }).first().getByRole("link", { name: "ตลาด" }).click();
      await urlIs(page, "/market");
      const url = `/market?keyWord_Incl_Or=${encodeURIComponent(WORD)}`;
      await marketShows(page, url, want.n);
      assert.equal(await text(page.getByTestId("mk-n-without")), String(want.without));
      assert.equal(await text(page.getByTestId("mk-p50")), pct(want.p50));
      assert.equal(await text(page.getByTestId("mk-mean")), pct(want.mean));
      for (const k of ["p10", "p25", "p50", "p75", "p90"]) assert.equal(await text(page.getByTestId(`mk-spread-${k}`)), pct(want[k]), k);
      // The chart is drawn (an SVG with bars), its numbers in the table under it.
      await visible(page.getByTestId("mk-histogram").locator("svg.recharts-surface"));
      assert.ok((await page.getByTestId("mk-histogram").locator(".recharts-bar-rectangle").count()) > 3, "histogram bars");
      await visible(page.getByTestId("mk-trend").locator("svg.recharts-surface"));
      // The winners: the most wins first, its page one click away; the damaged id grouped by name, no link.
      const first = page.getByTestId("mk-winner").first();
      assert.match(await first.innerText(), new RegExp(want.top[0]));
      const damaged = page.getByTestId("mk-winner").filter({ hasText: D.name });
      assert.match(await damaged.innerText(), /ไม่มีเลขผู้เสียภาษีที่ถูกต้อง/);
      assert.equal(await damaged.getByTestId("mk-winner-link").count(), 0);
      await ctx.shot(page, "95-market-1280", { fullPage: true });

      await first.getByTestId("mk-winner-link").click();
      await urlIs(page, `/market/suppliers/${A.tax}`);
      assert.equal(await text(page.getByTestId("mk-supplier-name")), A.name);
      assert.equal(await text(page.getByTestId("mk-supplier-wins")), String(rows.filter((r) => r.w === A).length));
      assert.match(await page.getByTestId("mk-supplier-recent").innerText(), new RegExp(WORD));
      await ctx.shot(page, "96-market-supplier-1280", { fullPage: true });

      // A phone: the same pages, tapped, with no sideways scroll.
      const phone = await ctx.newPage(PHONE);
      await login(phone, (await userOn(ctx, null, "pro", "marketphone")).u.username, PASSWORD);
      await urlIs(phone, "/");
      await marketShows(phone, url, want.n);
      await noSidewaysScroll(phone, "the market page at 360 px");
      await phone.getByTestId("mk-histogram").scrollIntoViewIfNeeded();
      await ctx.shot(phone, "97-market-360");
      await phone.getByTestId("mk-histogram").getByText("ตารางข้อมูลของกราฟ").tap();
      await visible(phone.getByTestId("mk-histogram").locator("table"));
      await noSidewaysScroll(phone, "the histogram's table at 360 px");
      await ctx.shot(phone, "98-market-360-full", { fullPage: true });
      await phone.getByTestId("mk-winner").first().getByTestId("mk-winner-link").tap();
      await urlIs(phone, `/market/suppliers/${A.tax}`);
      await visible(phone.getByTestId("supplier-page"));
      await noSidewaysScroll(phone, "the supplier page at 360 px");
      await ctx.shot(phone, "99-market-supplier-360", { fullPage: true });
    },
  },
  {
    name: "market: the simulator on a project places a typed bid as the server does, at 1280 and 360 px (tap)",
    async fn(ctx) {
      const rows = await seed(ctx);
      const project = rows[0];
      const page = await ctx.newPage();
      const { auth } = await userOn(ctx, page, "starter", "marketsim");
      await page.goto(`/project-details/${project.id}`);
      const panel = await visible(page.getByTestId("price-guide"));
      // The guide's group, in Thai, once the market holds the project.
      const deadline = Date.now() + 60_000;
      while (!(await panel.getByTestId("mk-basis").count()) || /ยังไม่มีกลุ่ม/.test(await panel.getByTestId("mk-basis").innerText())) {
        if (Date.now() > deadline) throw new Error(`no group: ${await panel.innerText()}`);
        await page.waitForTimeout(1000);
        await page.reload();
        await visible(page.getByTestId("price-guide").getByTestId("mk-basis"));
      }
      const bid = 1_000_000 - 61_000; // 6.10 % below this project's reference price of 1,000,000
      const api = await ctx.api("GET", `/projects/${project.id}/price-guide?bid_price=${bid}`, undefined, auth);
      assert.equal(api.status, 200, api.text);
      assert.match(await panel.getByTestId("mk-basis").innerText(), /ประเภท จ้างก่อสร้าง/);
      assert.equal(await panel.getByTestId("mk-n-line").innerText(), `คำนวณจาก ${api.json.n} โครงการ · ไม่นับ ${api.json.n_without_reference} โครงการที่ไม่มีราคากลางหรือราคาที่ตกลง`);

      await panel.getByTestId("mk-sim-bid").fill(String(bid));
      assert.equal(await panel.getByTestId("mk-sim-pct").inputValue(), "6.1");
      assert.equal(await text(panel.getByTestId("mk-sim-discount")), "6.10%");
      const rank = await text(panel.getByTestId("mk-sim-rank"));
      assert.equal(rank, `ส่วนลดนี้มากกว่า ${pct(api.json.bid.percentile_rank)} ของโครงการที่ชนะในกลุ่ม`);
      await visible(panel.getByTestId("mk-spread-bid"));
      await panel.scrollIntoViewIfNeeded();
      await ctx.shot(page, "9a-market-simulator-1280", { fullPage: true });

      // A phone: tap a percentile to take its bid; the rank follows.
      await page.setViewportSize({ width: 360, height: 780 });
      await noSidewaysScroll(page, "the project page with the price guide at 360 px");
      const phone = await ctx.newPage(PHONE);
      await login(phone, (await userOn(ctx, null, "starter", "marketsimphone")).u.username, PASSWORD);
      await urlIs(phone, "/");
      await phone.goto(`/project-details/${project.id}`);
      const p = phone.getByTestId("price-guide");
      await visible(p.getByTestId("mk-at-p75"));
      await p.getByTestId("mk-at-p75").tap();
      const p75 = api.json.discount_pct.p75;
      const placed = await ctx.api("GET", `/projects/${project.id}/price-guide?bid_price=${Math.round(1_000_000 * (100 - p75) * 100) / 10000}`, undefined, auth);
      assert.equal(await text(p.getByTestId("mk-sim-discount")), pct(p75));
      await visible(p.getByTestId("mk-sim-rank").filter({ hasText: pct(placed.json.bid.percentile_rank) }));
      await noSidewaysScroll(phone, "the simulator at 360 px");
      await p.getByTestId("mk-simulator").scrollIntoViewIfNeeded();
      await ctx.shot(phone, "9b-market-simulator-360");
    },
  },
  {
    name: "market: a watched competitor's new award reaches the bell live; the watchlist validates in Thai",
    async fn(ctx) {
      await seed(ctx);
      const page = await ctx.newPage(PHONE);
      await userOn(ctx, page, "pro", "marketwatch");
      await page.goto("/user-settings/watchlist");
      await visible(page.getByTestId("watch-empty"));
      const input = page.getByTestId("watch-taxid");
      await input.fill(`${C.tax.slice(0, 12)}${(Number(C.tax[12]) + 1) % 10}`);
      await page.getByTestId("watch-add").tap();
      await visible(page.getByText("เลขประจำตัวผู้เสียภาษีไม่ถูกต้อง (เลขตรวจสอบหลักที่ 13 ไม่ตรง)"));
      await input.fill(C.tax);
      await page.getByTestId("watch-add").tap();
      const row = await visible(page.getByTestId("watch-row"));
      assert.match(await row.innerText(), new RegExp(C.name));
      await noSidewaysScroll(page, "the watchlist at 360 px");
      await ctx.shot(page, "9c-market-watchlist-360");

      // The competitor wins a new project: the bell rings without a reload.
      const id = projectId(90);
      await ingestCSV(ctx, await operator(ctx), contractCSV([{ id, name: `จ้างเหมา${WORD} สายใหม่`, ref: 2_000_000, agreed: 1_876_543, year: 2569, w: C }]));
      await visible(page.getByTestId("bell-count"), 60_000);
      await page.getByTestId("bell-button").tap();
      const item = await visible(page.getByTestId("bell-panel").getByTestId("bell-item").filter({ hasText: id }));
      const said = await item.innerText();
      assert.match(said, /คู่แข่งชนะประมูล/);
      assert.match(said, new RegExp(C.name));
      assert.match(said, /1,876,543\.00/);
      await ctx.shot(page, "9d-market-bell-360");
    },
  },
  {
    name: "market: free sees the way to the plans; starter the benchmarks but not the supplier pages",
    async fn(ctx) {
      const page = await ctx.newPage();
      await userOn(ctx, page, "free", "marketfree");
      await page.goto("/market");
      await visible(page.getByTestId("mk-upgrade-benchmarks"));
      assert.equal(await page.getByTestId("mk-upgrade-link").getAttribute("href"), "/user-settings/pricing");
      await page.goto("/user-settings/watchlist");
      await visible(page.getByTestId("mk-upgrade-profiles"));
      await ctx.shot(page, "9e-market-free-1280");

      const starter = await ctx.newPage(PHONE);
      await userOn(ctx, starter, "starter", "marketstarter");
      await starter.goto("/market");
      await visible(starter.getByTestId("mk-n").or(starter.getByTestId("mk-empty")));
      await starter.goto(`/market/suppliers/${A.tax}`);
      await visible(starter.getByTestId("mk-upgrade-profiles"));
      await noSidewaysScroll(starter, "the upgrade prompt at 360 px");
      await ctx.shot(starter, "9f-market-starter-supplier-360");
    },
  },
];
