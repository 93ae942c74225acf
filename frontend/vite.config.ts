import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";
import { fileURLToPath, URL } from "node:url";
import { precompress } from "./scripts/precompress.ts";
import { landingRoutes, routePreload } from "./scripts/route-preload.ts";

// The Go gateway is the single origin in production; in dev we proxy the
// Connect paths (/<package>.<Service>/<Method>), REST and the WebSocket to it.
const backend = process.env.BIDRADAR_BACKEND ?? "http://127.0.0.1:8080";
const connectServices = [
  "/auth.v1.AuthService",
  "/projects.v1.ProjectsService",
  "/interests.v1.InterestsService",
  "/subscription.v1.SubscriptionService",
  "/notification.v1.NotificationService",
  "/teams.v1.TeamsService",
];

export default defineConfig({
  plugins: [react(), routePreload(landingRoutes), precompress()],
  resolve: {
    alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) },
  },
  server: {
    host: "127.0.0.1",
    proxy: {
      ...Object.fromEntries(connectServices.map((p) => [p, { target: backend, changeOrigin: false }])),
      "/app/backend": { target: backend },
      "/ws": { target: backend, ws: true },
      "/healthz": { target: backend },
    },
  },
  preview: { host: "127.0.0.1" },
  build: {
    outDir: "dist",
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      treeshake: {
        // A feature's index.ts re-exports its public API. Its modules run no
        // code on import beyond their CSS, so a page that uses one export of
        // another feature gets only that, not every re-exported component.
        moduleSideEffects: [
          { test: /\/src\/features\/.*\.css$/, sideEffects: true },
          { test: /\/src\/features\//, sideEffects: false, external: false },
        ],
      },
    },
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/testing/setup.ts"],
    restoreMocks: true,
    // Whole-app tests walk several screens, each waited for up to 5 s: on
    // two busy cores the default 5 s for the whole test is too tight.
    testTimeout: 20_000,
    reporters: ["default", "./scripts/plain-summary-reporter.ts"],
  },
});
