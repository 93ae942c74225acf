import { assert, hidden, urlIs, visible } from "../support/harness.mjs";

export default [
  {
    name: "home renders in Thai: features, tiers from ListTiers, FAQ, footer",
    async fn(ctx) {
      const page = await ctx.newPage();
      await page.goto("/");
      await visible(page.getByTestId("tier-pro"));
      assert.equal(await page.locator("[data-testid^=tier-]").count(), 4, "four tiers from the subscription API");
      assert.match(await page.getByTestId("tier-starter").innerText(), /฿490/);
      assert.match(await page.title(), / - BidRadar Thailand$/);
      assert.equal(await page.getAttribute("html", "lang"), "th");
      for (const id of ["features", "pricing", "faq"]) await visible(page.locator(`#${id}`));
      assert.match(await page.getByTestId("copyright").innerText(), new RegExp(String(new Date().getFullYear())));
      await ctx.shot(page, "01-home-desktop", { fullPage: true });
      // Header anchor links
      await page.getByRole("navigation", { name: "เมนูหลัก" }).first().getByRole("link", { name: "ราคา" }).click();
      await page.waitForURL((u) => u.hash === "#pricing");
      await page.waitForFunction(() => Math.abs(document.getElementById("pricing").getBoundingClientRect().top - 68) < 4);
      await ctx.shot(page, "02-home-pricing");
    },
  },
  {
    name: "unknown path: 404 page with header, image and footer",
    async fn(ctx) {
      // The document itself answers 404, which Chromium reports in the console.
      const page = await ctx.newPage({ allowConsole: [/status of 404/] });
      const res = await page.goto("/no/such/page");
      assert.equal(res.status(), 404, "a real 404, not a soft 200");
      await visible(page.getByTestId("not-found"));
      assert.equal(await page.title(), "ไม่พบหน้าที่ค้นหา - 404 Not Found");
      await visible(page.getByTestId("site-header"));
      await visible(page.getByTestId("site-footer"));
      await visible(page.getByRole("img", { name: "404" }));
      await ctx.shot(page, "03-not-found", { fullPage: true });
    },
  },
  {
    name: "/test shows the loading skeleton",
    async fn(ctx) {
      const page = await ctx.newPage();
      await page.goto("/test");
      await visible(page.getByTestId("page-skeleton"));
      await ctx.shot(page, "04-test-skeleton");
    },
  },
  {
    name: "mobile menu below md: slide-in, body scroll locked, closes on navigation",
    async fn(ctx) {
      const page = await ctx.newPage({ viewport: { width: 390, height: 844 } });
      await page.goto("/");
      await visible(page.getByTestId("tier-free"));
      await hidden(page.locator(".nav-desktop"));
      await ctx.shot(page, "05-mobile-home");
      await page.getByTestId("menu-toggle").click();
      await page.waitForFunction(() => document.querySelector("[data-testid=mobile-menu]")?.classList.contains("open"));
      assert.equal(await page.evaluate(() => document.body.style.overflow), "hidden");
      await page.waitForTimeout(300); // slide-in transition
      await ctx.shot(page, "06-mobile-menu-open");
      await page.getByTestId("mobile-menu").getByRole("link", { name: "คำถามที่พบบ่อย" }).click();
      await page.waitForURL((u) => u.hash === "#faq");
      await page.waitForFunction(() => !document.querySelector("[data-testid=mobile-menu]")?.classList.contains("open"));
      assert.equal(await page.evaluate(() => document.body.style.overflow), "");
      // Wider than md: the desktop nav is back and the toggle is gone.
      await page.setViewportSize({ width: 1024, height: 800 });
      await visible(page.locator(".nav-desktop"));
      await hidden(page.getByTestId("menu-toggle"));
    },
  },
  {
    name: "guards: login-required routes go to /login, /search stays open",
    async fn(ctx) {
      const page = await ctx.newPage();
      for (const p of ["/user-settings", "/user-settings/contact-us", "/project-details", "/payment"]) {
        await page.goto(p);
        await urlIs(page, "/login");
        await visible(page.getByTestId("login-form"));
      }
      await page.goto("/search");
      await visible(page.getByRole("heading", { name: "ค้นหาโครงการ" }));
      await urlIs(page, "/search");
      await page.goto("/signup");
      await visible(page.getByTestId("signup-form"));
      await ctx.shot(page, "07-signup");
    },
  },
];
