// The signed-in shell (issue 22): the app's own menu instead of the
// marketing one, the current route marked, the sticky header and the
// slide-in menu by touch at 360 px, the bar fitting from md to desktop.
import { assert, login, urlIs, visible } from "../support/harness.mjs";

const APP_MENU = ["ค้นหาโครงการ", "โครงการของฉัน", "ตลาด", "ไปป์ไลน์ทีม", "การแจ้งเตือน", "การตั้งค่า"];

/** The menu's entries (text) and the one marked current, inside a container. */
async function menu(nav) {
  return nav.evaluate((el) => ({
    labels: [...el.querySelectorAll("a")].map((a) => a.textContent.trim()),
    current: [...el.querySelectorAll("a[aria-current=page]")].map((a) => a.textContent.trim()),
  }));
}

const sideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

async function signedIn(ctx, opts) {
  const u = await ctx.createUser("shell", { name: "สมศักดิ์ ศรีสวัสดิ์วงศ์ตระกูลใหญ่ยิ่ง" });
  const page = await ctx.newPage(opts);
  await login(page, u.username, u.password);
  await urlIs(page, "/");
  await visible(page.getByTestId("user-menu-button"));
  return page;
}

export default [
  {
    name: "desktop: the app's menu with the current route marked, the header sticky, the bar fitting from md up",
    async fn(ctx) {
      const page = await signedIn(ctx);
      const bar = page.locator(".nav-desktop");
      await visible(bar);
      assert.deepEqual((await menu(bar)).labels, APP_MENU);
      for (const marketing of ["ฟีเจอร์", "ราคา", "คำถามที่พบบ่อย"]) assert.equal(await bar.getByRole("link", { name: marketing }).count(), 0);

      await bar.getByRole("link", { name: "การแจ้งเตือน" }).click();
      await urlIs(page, "/notifications");
      await page.waitForFunction(() => document.querySelector(".nav-desktop a[aria-current=page]")?.textContent.trim() === "การแจ้งเตือน");
      assert.deepEqual((await menu(bar)).current, ["การแจ้งเตือน"]);
      await bar.getByRole("link", { name: "การตั้งค่า" }).click();
      await urlIs(page, "/user-settings/user-info");
      await page.waitForFunction(() => document.querySelector(".nav-desktop a[aria-current=page]")?.textContent.trim() === "การตั้งค่า");
      await ctx.shot(page, "70-app-menu-desktop");

      // Sticky: the header stays at the top of a scrolled page.
      await page.goto("/search");
      await visible(page.getByRole("heading", { name: "ค้นหาโครงการ" }));
      assert.deepEqual((await menu(bar)).current, ["ค้นหาโครงการ"]);
      await page.mouse.wheel(0, 1200);
      await page.waitForFunction(() => window.scrollY > 200);
      assert.equal(await page.getByTestId("site-header").evaluate((h) => Math.round(h.getBoundingClientRect().top)), 0);

      // From md (768) up every entry is on screen, nothing overlaps, nothing scrolls sideways.
      for (const width of [768, 900, 1024, 1280]) {
        await page.setViewportSize({ width, height: 800 });
        await page.goto("/my-projects");
        await visible(bar);
        const m = await page.evaluate(() => {
          const links = [...document.querySelectorAll(".nav-desktop a")].map((a) => a.getBoundingClientRect());
          const actions = document.querySelector(".header-actions").getBoundingClientRect();
          const logo = document.querySelector(".site-header .logo").getBoundingClientRect();
          return {
            inside: links.every((r) => r.left >= 0 && r.right <= window.innerWidth),
            clearOfActions: links.every((r) => r.right <= actions.left + 0.5),
            clearOfLogo: links.every((r) => r.left >= logo.right - 0.5),
            oneLine: new Set(links.map((r) => Math.round(r.top))).size === 1,
            wide: document.documentElement.scrollWidth - window.innerWidth,
          };
        });
        assert.deepEqual(m, { inside: true, clearOfActions: true, clearOfLogo: true, oneLine: true, wide: 0 }, `header at ${width} px`);
        assert.deepEqual((await menu(bar)).current, ["โครงการของฉัน"]);
      }
      await ctx.shot(page, "71-app-menu-1280");
      await page.setViewportSize({ width: 768, height: 800 });
      await ctx.shot(page, "72-app-menu-768");
    },
  },
  {
    name: "phone 360 px by touch: the slide-in menu holds the app's menu, locks the page, marks the route, no sideways scroll",
    async fn(ctx) {
      const page = await signedIn(ctx, { viewport: { width: 360, height: 740 }, touch: true });
      assert.ok((await sideways(page)) <= 0, `/ scrolls sideways by ${await sideways(page)} px`);
      assert.equal(await page.locator(".nav-desktop").isVisible(), false);

      await page.getByTestId("menu-toggle").tap();
      const drawer = page.getByTestId("mobile-menu");
      await page.waitForFunction(() => document.querySelector("[data-testid=mobile-menu]")?.classList.contains("open"));
      assert.equal(await page.evaluate(() => document.body.style.overflow), "hidden");
      const nav = drawer.getByRole("navigation");
      assert.deepEqual((await menu(nav)).labels, APP_MENU);
      await page.waitForTimeout(300); // slide-in transition
      await ctx.shot(page, "73-app-menu-phone-open");

      await nav.getByRole("link", { name: "โครงการของฉัน" }).tap();
      await urlIs(page, "/my-projects");
      await page.waitForFunction(() => !document.querySelector("[data-testid=mobile-menu]")?.classList.contains("open"));
      assert.equal(await page.evaluate(() => document.body.style.overflow), "");
      assert.ok((await sideways(page)) <= 0, `/my-projects scrolls sideways by ${await sideways(page)} px`);

      await page.getByTestId("menu-toggle").tap();
      await page.waitForFunction(() => document.querySelector("[data-testid=mobile-menu]")?.classList.contains("open"));
      assert.deepEqual((await menu(nav)).current, ["โครงการของฉัน"]);
      // Leaving is still there, at the bottom of the drawer.
      await visible(drawer.getByRole("button", { name: "ออกจากระบบ" }));
      await nav.getByRole("link", { name: "การแจ้งเตือน" }).tap();
      await urlIs(page, "/notifications");
      await page.waitForFunction(() => !document.querySelector("[data-testid=mobile-menu]")?.classList.contains("open"));
      assert.ok((await sideways(page)) <= 0, `/notifications scrolls sideways by ${await sideways(page)} px`);
    },
  },
];
