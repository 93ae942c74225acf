// Teams in a real browser (issue 25): an owner on the pro plan makes a team,
// invites two colleagues by e-mail, one joins by the mailed link and one by
// typing the code; the owner adds projects to the shared pipeline from search
// and from a project's page, drags one across stages with the mouse and
// then with the keyboard, sets its owner, due date and bid price, mentions a
// member in the discussion, and that member's bell rings. The viewer sees
// the pipeline read-only; the fourth seat is refused; a free user is shown
// the plans. Then the member works the board on a 360 px phone by touch.
import { assert, login, toast, typeCode, urlIs, visible } from "../support/harness.mjs";

const MARK = "ทีมประมูลอีทูอี"; // only the projects seeded here carry it
const PASSWORD = "ประมูลงานรัฐ-2569";
const IDS = ["69130000001", "69130000002", "69130000003"];

function releases() {
  return {
    uri: "https://example.test/e2e-teams.json",
    publishedDate: "2026-11-21T00:00:00Z",
    version: "1.1",
    releases: IDS.map((id, i) => ({
      ocid: `ocds-e2e-team-${id}`,
      id: `${id}-1`,
      date: `2026-11-0${i + 1}T10:00:00+07:00`,
      tag: ["planning", "tender"],
      initiationType: "tender",
      buyer: { id: "ORG-25", name: "เทศบาลเมืองทีมงาน" },
      parties: [{ id: "ORG-25", name: "เทศบาลเมืองทีมงาน", roles: ["buyer"], address: { region: "เชียงใหม่" } }],
      planning: { budget: { amount: { amount: 2_500_000, currency: "THB" } } },
      tender: {
        id,
        title: `จ้างก่อสร้างอาคาร${MARK} หลังที่ ${i + 1}`,
        status: "active",
        value: { amount: 2_500_000, currency: "THB" },
        procurementMethod: "open",
        procurementMethodDetails: "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)",
        mainProcurementCategory: "works",
        tenderPeriod: { endDate: "2026-12-20T16:30:00+07:00" },
      },
      awards: [],
    })),
  };
}

async function seed(ctx) {
  const probe = await ctx.api("GET", `/gen-infor?keyWord_Incl_Or=${encodeURIComponent(MARK)}`);
  if (Number(probe.json?.pagination?.total ?? 0) >= IDS.length) return;
  const u = await ctx.createUser("seedteam", { domain: "ops.bidradar.test" });
  const li = await ctx.api("POST", "/login", { username: u.username, password: u.password });
  assert.equal(li.status, 200, li.text);
  const content = Buffer.from(JSON.stringify(releases()), "utf8").toString("base64");
  const r = await ctx.api("POST", "/admin/ingest", { source: "ocds", content }, { authorization: `Bearer ${li.json.access_token}` });
  assert.equal(r.status, 200, `ingest: ${r.text}`);
}

async function bearer(ctx, u) {
  const li = await ctx.api("POST", "/login", { username: u.username, password: PASSWORD });
  assert.equal(li.status, 200, li.text);
  return { authorization: `Bearer ${li.json.access_token}` };
}

/** Buys the pro plan for u through the local provider (the checkout of `make run`), over REST. */
async function buyPro(ctx, u) {
  const auth = await bearer(ctx, u);
  const co = await ctx.api("POST", "/payment/checkout", { tier: "pro", period: "monthly", method: "card", receipt_only: true }, auth);
  assert.equal(co.status, 200, `checkout: ${co.text}`);
  const paid = await ctx.api("POST", `/payment/local/${co.json.session_id}/complete`, { outcome: "paid" }, auth);
  assert.equal(paid.status, 200, `pay: ${paid.text}`);
}

async function noSidewaysScroll(page, what) {
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wide <= 0, `${what} scrolls sideways by ${wide}px`);
}

const card = (page, id) => page.locator(`[data-testid=board-card][data-project-id="${id}"]`);

async function cardIn(page, id, stage) {
  await visible(page.getByTestId(`column-${stage}`).locator(`[data-testid=board-card][data-project-id="${id}"]`));
}

/** The invitation's mail: its 6-digit code and the link to /teams/join. */
async function invitationFor(ctx, email, after) {
  const m = await ctx.mail.nextFor(email, { after });
  assert.ok(m.code, `a 6-digit code in the invitation: ${m.text.slice(0, 400)}`);
  const link = /https?:\/\/\S*\/teams\/join\?code=\d{6}/.exec(m.text)?.[0] ?? null;
  return { code: m.code, link, subject: m.subject };
}

/** What the tests of one story hand on: the three people and their team (each test has fresh pages). */
const S = { owner: null, member: null, viewer: null, teamId: "" };

function story() {
  assert.ok(S.teamId, "needs the team the first teams test makes");
  return S;
}

async function signedIn(ctx, u, opts = {}) {
  const page = await ctx.newPage(opts);
  await login(page, u.username, PASSWORD);
  await urlIs(page, "/");
  return page;
}

export default [
  {
    name: "teams: the owner makes a team and invites by e-mail; one joins from the mailed link, one by typing the code; the fourth seat is refused",
    async fn(ctx) {
      await seed(ctx);
      const owner = await ctx.createUser("teamowner", { name: "สมศักดิ์ เจ้าของทีม", password: PASSWORD });
      const member = await ctx.createUser("teammember", { name: "มาลี ร่วมทีม", password: PASSWORD });
      const viewer = await ctx.createUser("teamviewer", { name: "วิชัย ผู้ดู", password: PASSWORD });
      await buyPro(ctx, owner);

      // ---- the owner makes the team and invites two colleagues
      // A refused fourth seat logs its 409 in the console.
      const op = await ctx.newPage({ allowConsole: [/status of 409/] });
      await login(op, owner.username, PASSWORD);
      await urlIs(op, "/");
      // The app's menu has the team's pipeline; without a team it leads to the teams page.
      await op.getByRole("link", { name: "ไปป์ไลน์ทีม" }).first().click();
      await urlIs(op, "/pipeline");
      await op.getByTestId("pipeline-no-team").getByRole("link").click();
      await urlIs(op, "/teams");
      await op.getByTestId("team-create-name").fill("ทีมประมูล อีทูอี");
      await op.getByTestId("team-create").click();
      await visible(op.getByTestId("team-settings"));
      const teamId = op.url().split("/teams/")[1];
      assert.match(teamId, /.+/);
      await visible(op.getByTestId("team-seats").filter({ hasText: "ใช้ที่นั่งแล้ว 1 จาก 3" }));

      const mBefore = ctx.mail.countFor(member.email);
      await op.getByTestId("invite-email").fill(member.email);
      await op.getByTestId("invite-role").selectOption("member");
      await op.getByTestId("invite-send").click();
      await toast(op, `ส่งคำเชิญไปที่ ${member.email} แล้ว`);
      const vBefore = ctx.mail.countFor(viewer.email);
      await op.getByTestId("invite-email").fill(viewer.email);
      await op.getByTestId("invite-role").selectOption("viewer");
      await op.getByTestId("invite-send").click();
      await visible(op.getByTestId("invite-row").filter({ hasText: viewer.email }));
      await visible(op.getByTestId("team-seats").filter({ hasText: "ใช้ที่นั่งแล้ว 3 จาก 3" }));
      // The pro plan's three seats are taken (pending invitations count): the fourth is refused in Thai.
      await op.getByTestId("invite-email").fill(`extra.${owner.email}`);
      await op.getByTestId("invite-send").click();
      await visible(op.getByTestId("invite-seat-limit"));
      assert.doesNotMatch(await op.getByTestId("invite-seat-limit").innerText(), /[A-Za-z]{4,}/, "the seat limit is told in Thai");
      await ctx.shot(op, "t01-team-settings-invited", { fullPage: true });

      // ---- the member joins from the mailed link, the viewer by typing the code
      const mInv = await invitationFor(ctx, member.email, mBefore);
      const vInv = await invitationFor(ctx, viewer.email, vBefore);
      const mp = await ctx.newPage();
      await login(mp, member.username, PASSWORD);
      await urlIs(mp, "/");
      const joinPath = mInv.link ? new URL(mInv.link).pathname + new URL(mInv.link).search : `/teams/join?code=${mInv.code}`;
      await mp.goto(joinPath);
      await visible(mp.getByTestId("team-join"));
      await ctx.shot(mp, "t02-join-from-link");
      await mp.getByTestId("team-join-submit").click();
      await urlIs(mp, "/pipeline");
      await visible(mp.getByTestId("pipeline-page"));

      const vp = await ctx.newPage();
      await login(vp, viewer.username, PASSWORD);
      await urlIs(vp, "/");
      await vp.goto("/teams/join");
      await typeCode(vp, vInv.code);
      await vp.getByTestId("team-join-submit").click();
      await urlIs(vp, "/pipeline");

      await op.reload();
      await visible(op.getByTestId("member-row").filter({ hasText: member.username }));
      const viewerRow = await visible(op.getByTestId("member-row").filter({ hasText: viewer.username }));
      assert.equal(await viewerRow.getByTestId("member-role").inputValue(), "viewer");
      Object.assign(S, { owner, member, viewer, teamId });
    },
  },
  {
    name: "teams: add from search and from a project's page, drag across stages with the mouse, then the keyboard, then the card's select",
    async fn(ctx) {
      const { owner } = story();
      const op = await signedIn(ctx, owner);

      // ---- the owner adds projects: from a search row and from a project's page
      await op.goto(`/search?keyWord_Incl_Or=${encodeURIComponent(MARK)}`);
      const row = op.locator(`[data-testid=result-row][data-project-id="${IDS[0]}"]`);
      await visible(row);
      await row.getByTestId("add-to-pipeline").click();
      await toast(op, "เพิ่มในไปป์ไลน์ของ ทีมประมูล อีทูอี แล้ว");
      await visible(row.getByTestId("pipeline-open"));
      await ctx.shot(op, "t03-search-added");
      await op.goto(`/project-details/${IDS[1]}`);
      await op.getByTestId("add-to-pipeline").click();
      await toast(op, "เพิ่มในไปป์ไลน์ของ ทีมประมูล อีทูอี แล้ว");

      // ---- the board: a column per stage; drag the first project from triage to preparing
      await op.getByRole("link", { name: "ไปป์ไลน์ทีม" }).first().click();
      await urlIs(op, "/pipeline");
      for (const s of ["triage", "preparing", "submitted", "won", "lost", "abandoned"]) await visible(op.getByTestId(`column-${s}`));
      await cardIn(op, IDS[0], "triage");
      await cardIn(op, IDS[1], "triage");
      const handle = card(op, IDS[0]).getByTestId("drag-handle");
      const from = await handle.boundingBox();
      const to = await op.getByTestId("column-preparing").boundingBox();
      await op.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await op.mouse.down();
      await op.mouse.move(from.x + from.width / 2 + 10, from.y + from.height / 2 + 5, { steps: 3 });
      await op.mouse.move(to.x + to.width / 2, to.y + 60, { steps: 12 });
      await ctx.shot(op, "t04-board-dragging");
      await op.mouse.up();
      await cardIn(op, IDS[0], "preparing");
      await toast(op, "ไปที่ \"เตรียมเอกสาร\" แล้ว");
      // The server has it: after a reload it is still there.
      await op.reload();
      await cardIn(op, IDS[0], "preparing");

      // The keyboard: lift with Space, one column right, drop with Space.
      // (dnd-kit listens for the arrows from the tick after the lift: each step waits for the board to show it.)
      await card(op, IDS[0]).getByTestId("drag-handle").focus();
      await op.keyboard.press("Space");
      await visible(op.locator(`[data-testid=board][data-dragging="${IDS[0]}"]`));
      // Under load the first arrow can land before dnd-kit listens: press again
      // only while no column to the right has taken it.
      for (let i = 0; i < 5; i++) {
        await op.keyboard.press("ArrowRight");
        const over = await op.locator("[data-testid=column-submitted].over").first().waitFor({ timeout: 2_000 }).then(() => true, () => false);
        if (over || (await op.locator("[data-testid=column-won].over, [data-testid=column-lost].over, [data-testid=column-abandoned].over").count()) > 0) break;
      }
      await visible(op.locator("[data-testid=column-submitted].over"));
      await ctx.shot(op, "t04b-board-keyboard-over");
      await op.keyboard.press("Space");
      await cardIn(op, IDS[0], "submitted");
      // And the card's own stage select.
      await card(op, IDS[1]).getByTestId("card-stage").selectOption("preparing");
      await cardIn(op, IDS[1], "preparing");
      await ctx.shot(op, "t05-board-1280", { fullPage: true });
      // The menu's new entry leaves the header room at every desktop width.
      for (const width of [1280, 1024, 800]) {
        await op.setViewportSize({ width, height: 860 });
        const right = await op.getByRole("button", { name: "เมนูบัญชีผู้ใช้" }).evaluate((e) => e.getBoundingClientRect().right);
        assert.ok(right <= width, `the account menu ends at ${right}px of ${width}px`);
        await noSidewaysScroll(op, `the board at ${width} px`);
      }
      await ctx.shot(op, "t05b-board-800", { fullPage: true });
    },
  },
  {
    name: "teams: the drawer's owner, due date and bid price with who changed what; a mention from the autocomplete rings the member's bell",
    async fn(ctx) {
      const { owner, member } = story();
      // The member is signed in first: the bell must ring live.
      const mp = await signedIn(ctx, member);
      await visible(mp.getByTestId("bell-button"));
      const op = await signedIn(ctx, owner);
      await op.goto(`/pipeline?team=${S.teamId}`);
      await cardIn(op, IDS[0], "submitted");

      // ---- the drawer: owner, due date, bid price to the satang; the history says who changed what
      await card(op, IDS[0]).getByTestId("card-open").click();
      const drawer = await visible(op.getByTestId("item-drawer"));
      const ownerValue = await drawer.getByTestId("item-owner").locator("option", { hasText: `@${member.username}` }).getAttribute("value");
      await drawer.getByTestId("item-owner").selectOption(ownerValue);
      await drawer.getByTestId("item-due").fill("15/12/2569");
      await drawer.getByTestId("item-bid").fill("2,345,678.91");
      await drawer.getByTestId("item-note").fill("ตรวจสเปกเหล็กเส้นก่อนยื่น");
      await drawer.getByTestId("item-save").click();
      await toast(op, "บันทึกแล้ว");
      const history = drawer.getByTestId("item-history");
      await visible(history.locator("[data-testid=history-entry][data-field=bid_price]").filter({ hasText: "2,345,678.91 บาท" }));
      await visible(history.locator("[data-testid=history-entry][data-field=due_date]").filter({ hasText: "15 ธ.ค. 2569" }));
      await visible(history.locator("[data-testid=history-entry][data-field=stage]").filter({ hasText: "ยื่นข้อเสนอแล้ว" }));
      // The member by name (or username when the account has no display name).
      await visible(history.locator("[data-testid=history-entry][data-field=owner_user_id]").filter({ hasText: new RegExp(`มาลี ร่วมทีม|${member.username}`) }));
      assert.match(await history.innerText(), /25\d\d/, "history dates are Buddhist era");

      // ---- a comment mentioning the member, picked from the autocomplete
      const box = drawer.getByTestId("comment-text");
      await box.click();
      await box.pressSequentially(`ช่วยตรวจราคาอีกรอบ @${member.username.slice(0, 6)}`, { delay: 15 });
      await visible(drawer.getByTestId("mention-option").filter({ hasText: member.username }));
      await ctx.shot(op, "t06-mention-autocomplete");
      await op.keyboard.press("Enter");
      assert.equal(await box.inputValue(), `ช่วยตรวจราคาอีกรอบ @${member.username} `);
      await box.pressSequentially("ก่อนวันศุกร์");
      await drawer.getByTestId("comment-send").click();
      await visible(drawer.getByTestId("team-comment").filter({ hasText: `@${member.username}` }));
      await ctx.shot(op, "t07-item-drawer", { fullPage: false });

      // ---- the member's bell rings, live, naming the project
      await visible(mp.getByTestId("bell-count"), 20_000);
      await mp.getByTestId("bell-button").click();
      const item = await visible(mp.getByTestId("bell-panel").getByTestId("bell-item").filter({ hasText: "มีคนกล่าวถึงคุณในทีม" }));
      assert.match(await item.innerText(), new RegExp(`${MARK} หลังที่ 1`));
      await ctx.shot(mp, "t08-member-bell");
      await mp.keyboard.press("Escape");

    },
  },
  {
    name: "teams: the viewer reads only; the member works the board on a 360 px phone by touch",
    async fn(ctx) {
      const { member, viewer, teamId } = story();
      const vp = await signedIn(ctx, viewer);
      await vp.goto(`/pipeline?team=${teamId}`);
      await cardIn(vp, IDS[0], "submitted");
      await visible(vp.getByTestId("pipeline-read-only"));
      assert.equal(await vp.getByTestId("drag-handle").count(), 0);
      assert.equal(await vp.getByTestId("card-stage").count(), 0);
      await card(vp, IDS[0]).getByTestId("card-open").click();
      const vd = await visible(vp.getByTestId("item-drawer"));
      assert.ok(await vd.getByTestId("item-stage").isDisabled());
      assert.equal(await vd.getByTestId("comment-text").count(), 0);
      await visible(vd.getByTestId("team-comment").filter({ hasText: `@${member.username}` }));
      await ctx.shot(vp, "t09-viewer-read-only");

      // ---- the member on a phone: a list per stage, no sideways scroll, touch
      const phone = await signedIn(ctx, member, { viewport: { width: 360, height: 780 }, touch: true });
      await phone.goto(`/pipeline?team=${teamId}`);
      await cardIn(phone, IDS[1], "preparing");
      await noSidewaysScroll(phone, "the pipeline at 360 px");
      await ctx.shot(phone, "t10-pipeline-360", { fullPage: true });
      await card(phone, IDS[1]).getByTestId("card-stage").tap();
      await card(phone, IDS[1]).getByTestId("card-stage").selectOption("won");
      await cardIn(phone, IDS[1], "won");
      await card(phone, IDS[1]).getByTestId("card-open").tap();
      await visible(phone.getByTestId("item-drawer"));
      await noSidewaysScroll(phone, "the item drawer at 360 px");
      await ctx.shot(phone, "t11-drawer-360");
      await phone.getByTestId("drawer-close").tap();
      await phone.goto(`/teams/${teamId}`);
      await visible(phone.getByTestId("team-members"));
      await noSidewaysScroll(phone, "team settings at 360 px");
      await ctx.shot(phone, "t12-team-settings-360", { fullPage: true });
      await phone.goto("/notifications");
      await visible(phone.getByTestId("bell-item").filter({ hasText: "มีคนกล่าวถึงคุณในทีม" }));
      await noSidewaysScroll(phone, "notifications at 360 px");
    },
  },
  {
    name: "teams: API keys shown once and revoked, the team calendar link; a free user is shown the plans",
    async fn(ctx) {
      const owner = await ctx.createUser("teamkeys", { name: "คีย์ ของทีม", password: PASSWORD });
      await buyPro(ctx, owner);
      const page = await ctx.newPage({ allowConsole: [/status of 403/] });
      await login(page, owner.username, PASSWORD);
      await urlIs(page, "/");
      await page.goto("/teams");
      await page.getByTestId("team-create-name").fill("ทีมระบบ ERP");
      await page.getByTestId("team-create").click();
      await visible(page.getByTestId("team-api-keys"));
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);

      await page.getByTestId("key-name").fill("ระบบ ERP ฝ่ายขาย");
      await page.getByTestId("key-scope-write").check();
      await page.getByTestId("key-create").click();
      const secret = await (await visible(page.getByTestId("key-secret-value"))).inputValue();
      assert.ok(secret.length >= 20, "the key is shown once");
      await page.getByTestId("key-copy").click();
      await toast(page, "คัดลอกคีย์แล้ว");
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
      const keyRow = await visible(page.locator("[data-testid=key-row][data-key-name='ระบบ ERP ฝ่ายขาย']"));
      assert.match(await keyRow.innerText(), /อ่าน \+ เขียน/);
      assert.match(await keyRow.innerText(), /ยังไม่เคยใช้/);
      assert.ok(!(await keyRow.innerText()).includes(secret), "the list never shows the secret");
      await ctx.shot(page, "t20-api-key-once");
      await page.getByTestId("key-secret-done").click();
      await page.reload();
      assert.equal(await page.getByTestId("key-secret").count(), 0, "after closing, the secret is gone for good");

      // The key reads the team's pipeline; revoked, it reads nothing.
      const teamId = page.url().split("/teams/")[1];
      const read = await ctx.api("GET", `/teams/${teamId}/pipeline`, undefined, { "x-api-key": secret });
      assert.equal(read.status, 200, read.text);
      page.once("dialog", (d) => void d.accept());
      await page.getByTestId("key-revoke").click();
      await toast(page, "ยกเลิกคีย์ ระบบ ERP ฝ่ายขาย แล้ว");
      const after = await ctx.api("GET", `/teams/${teamId}/pipeline`, undefined, { "x-api-key": secret });
      assert.equal(after.status, 401, after.text);

      // The team calendar: a secret .ics link with a copy button.
      await page.getByTestId("team-feed-make").click();
      const url = await (await visible(page.getByTestId("team-feed-url"))).inputValue();
      assert.match(url, /\/team-calendar\/.+\.ics$/);
      const ics = await fetch(url);
      assert.equal(ics.status, 200);
      assert.match(await ics.text(), /BEGIN:VCALENDAR/);
      await page.getByTestId("team-feed-copy").click();
      await toast(page, "คัดลอกลิงก์ปฏิทินแล้ว");
      await ctx.shot(page, "t21-team-calendar", { fullPage: true });

      // A free user: the plans, not a form that fails.
      const free = await ctx.createUser("teamfree", { name: "ฟรี ไม่มีทีม", password: PASSWORD });
      const fp = await ctx.newPage({ viewport: { width: 360, height: 780 }, touch: true });
      await login(fp, free.username, PASSWORD);
      await urlIs(fp, "/");
      await fp.goto("/teams");
      await visible(fp.getByTestId("team-upgrade"));
      assert.equal(await fp.getByTestId("team-upgrade-link").getAttribute("href"), "/user-settings/pricing");
      await noSidewaysScroll(fp, "the teams page at 360 px");
      await ctx.shot(fp, "t22-free-upgrade-360");
      const refused = await ctx.api("POST", "/teams", { name: "ทีมฟรี" }, await bearer(ctx, free));
      assert.equal(refused.status, 403, refused.text);
      await fp.goto("/pipeline");
      await visible(fp.getByTestId("pipeline-no-team"));
    },
  },
];
