import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { RouteObject } from "react-router";
import { routes } from "./router";

/** Every path of the route table, parents joined ("*" left out). */
function paths(rs: RouteObject[], base = ""): string[] {
  const out: string[] = [];
  for (const r of rs) {
    const here = r.index ? base : r.path ? `${base}/${r.path}`.replace(/\/+/g, "/") : base;
    if (r.path === "*") continue;
    if (r.index || (r.path && !r.children)) out.push(here || "/");
    if (r.path && r.children) out.push(here);
    if (r.children) out.push(...paths(r.children, here));
  }
  return out;
}

// The gateway answers paths outside this list with HTTP 404 (and the app's 404 page).
describe("gateway/gw/spa_routes.txt", () => {
  const listed = new Set(
    readFileSync(resolve(__dirname, "../../../gateway/gw/spa_routes.txt"), "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#")),
  );
  it("lists every route of the router", () => {
    const all = [...new Set(paths(routes))];
    expect(all).toEqual(expect.arrayContaining(["/", "/search", "/my-projects", "/project-details/:projectId", "/user-settings/line-api"]));
    expect(all.length).toBeGreaterThan(25);
    expect(all.filter((p) => !listed.has(p))).toEqual([]);
  });
});
