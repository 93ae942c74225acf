import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { landingRoutes } from "../../scripts/route-preload";

// The build announces these routes' chunks with index.html: each must be a
// route the gateway serves, and its module the one the router lazy-loads.
describe("landing routes (scripts/route-preload.ts)", () => {
  const spaRoutes = readFileSync(resolve(__dirname, "../../../gateway/gw/spa_routes.txt"), "utf8").split("\n").map((l) => l.trim());
  const router = readFileSync(resolve(__dirname, "router.tsx"), "utf8");
  for (const [route, mod] of Object.entries(landingRoutes)) {
    it(`${route} → ${mod}`, () => {
      expect(spaRoutes).toContain(route);
      expect(router).toContain(`import("${mod.replace(/^src\//, "@/").replace(/\.tsx$/, "")}")`);
    });
  }
});
