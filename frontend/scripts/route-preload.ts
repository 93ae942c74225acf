// A Vite plugin that writes dist/route-preload.json: for the routes a visitor
// lands on cold, what the first screen needs — the entry's stylesheet and
// chunks first, then the route's lazy chunks and their CSS. The gateway sends
// them as Link headers with index.html (gateway/gw/static.go), so the browser
// fetches the route's code alongside the entry instead of after it has run,
// and in this order: the entry's stylesheet, which the first paint waits
// for, never queues behind the route's code (HTTP/1.1 has six connections).
import path from "node:path";
import type { Plugin } from "vite";

type Chunk = { type: "chunk"; fileName: string; isEntry: boolean; facadeModuleId: string | null; imports: string[]; viteMetadata?: { importedCss: Set<string> } };

export const ROUTE_PRELOAD_FILE = "route-preload.json";

// Where visitors land cold: each route's lazy module (src/app/router.tsx),
// whose chunks the gateway announces with index.html (route-preload.ts).
export const landingRoutes: Record<string, string> = {
  "/": "src/features/home/components/home-route.tsx",
  "/search": "src/features/search/components/search-page.tsx",
  "/project-details/:projectId": "src/features/projects/components/project-pages.tsx",
  "/login": "src/features/auth/components/login-page.tsx",
  "/signup": "src/features/auth/components/signup-page.tsx",
  "/my-projects": "src/features/interests/components/my-projects-page.tsx",
  "/notifications": "src/features/notifications/components/notifications-page.tsx",
  "/about": "src/features/legal/components/legal-pages.tsx",
  "/privacy": "src/features/legal/components/legal-pages.tsx",
  "/terms": "src/features/legal/components/legal-pages.tsx",
};

/** routes: route pattern (as in gateway/gw/spa_routes.txt) → the module its lazy route imports. */
export function routePreload(routes: Record<string, string>): Plugin {
  let root = process.cwd();
  return {
    name: "bidradar-route-preload",
    apply: "build",
    configResolved(c) {
      root = c.root;
    },
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((c): c is typeof c & Chunk => c.type === "chunk") as unknown as Chunk[];
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      const closure = (file: string, into: Set<string>) => {
        if (into.has(file)) return;
        into.add(file);
        for (const i of byFile.get(file)?.imports ?? []) closure(i, into);
      };
      const initial = new Set<string>();
      for (const c of chunks.filter((c) => c.isEntry)) closure(c.fileName, initial);
      const cssOf = (files: string[]) => [...new Set(files.flatMap((f) => [...(byFile.get(f)?.viteMetadata?.importedCss ?? [])]))];
      const entry = [...cssOf([...initial]), ...initial];
      const out: Record<string, string[]> = {};
      for (const [route, mod] of Object.entries(routes)) {
        const chunk = chunks.find((c) => c.facadeModuleId === path.resolve(root, mod));
        if (!chunk) this.error(`route-preload: ${route}: no chunk comes from ${mod}`);
        const files = new Set<string>();
        closure(chunk.fileName, files);
        const js = [...files].filter((f) => !initial.has(f));
        out[route] = [...entry, ...js, ...cssOf(js)].map((f) => `/${f}`);
      }
      this.emitFile({ type: "asset", fileName: ROUTE_PRELOAD_FILE, source: `${JSON.stringify(out, null, 2)}\n` });
    },
  };
}
