// ESLint 9 flat config: `npm run lint` (scripts/test.sh runs it as frontend-lint).
import fs from "node:fs";
import path from "node:path";
import { defineConfig } from "eslint/config";
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import jsxA11y from "eslint-plugin-jsx-a11y";
import eslintComments from "@eslint-community/eslint-plugin-eslint-comments";
import { importX, createNodeResolver } from "eslint-plugin-import-x";

const root = import.meta.dirname;
const featuresDir = path.join(root, "src/features");
const features = fs
  .readdirSync(featuresDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

/**
 * Feature boundaries: a file of src/features/<a>/ may use another feature
 * <b> only through src/features/<b>/index.ts, its public API. Imports are
 * resolved (the "@/" alias and relative paths alike), so `../../b/lib/x`
 * is caught as well as `@/features/b/lib/x`.
 */
const featureZones = features.map((a) => ({
  target: `./src/features/${a}/**/*`,
  from: `./src/features/!(${a})/**/*`,
  // Exceptions of a glob zone are matched against the absolute resolved path.
  except: [path.join(featuresDir, "*/index.ts")],
  message: `Import another feature only through its public API, "@/features/<name>" (src/features/<name>/index.ts); export what "${a}" needs from there.`,
}));

export default defineConfig(
  {
    ignores: ["dist/**", "src/gen/**", "node_modules/**", "test-results/**", "e2e-artifacts/**", "coverage/**"],
  },
  // A disable comment must still be needed and must say why
  // (`// eslint-disable-next-line rule -- reason`).
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    plugins: { "@eslint-community/eslint-comments": eslintComments },
    rules: {
      "@eslint-community/eslint-comments/require-description": "error",
      "@eslint-community/eslint-comments/no-unlimited-disable": "error",
    },
  },

  js.configs.recommended,
  tseslint.configs.recommended,

  // Type-aware rules (floating promises, unsafe any, ...) for the TypeScript
  // sources: one tsconfig program, about as costly as `npm run typecheck`.
  {
    files: ["**/*.{ts,tsx}"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
      globals: { ...globals.browser },
    },
  },

  // React: hooks and accessibility.
  {
    files: ["src/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  {
    files: ["src/**/*.tsx"],
    ...jsxA11y.flatConfigs.recommended,
  },

  // Feature boundaries (see featureZones above).
  {
    files: ["src/**/*.{ts,tsx}"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/resolver-next": [
        createNodeResolver({
          extensions: [".ts", ".tsx", ".js", ".mjs", ".json"],
          tsconfig: { configFile: path.join(root, "tsconfig.json") },
        }),
      ],
    },
    rules: {
      "import-x/no-restricted-paths": ["error", { zones: featureZones }],
    },
  },

  // Tests: `await act(async () => { fireEvent... })` and async stubs such as
  // `onVerify={async () => {}}` are async for what they return (act then
  // flushes the promise work they start), not for an await inside.
  {
    files: ["src/**/*.test.{ts,tsx}"],
    rules: { "@typescript-eslint/require-await": "off" },
  },

  // Node-side scripts: the bundle budget, the vitest reporter, this file.
  {
    files: ["scripts/**/*.{mjs,ts}", "*.{js,ts}"],
    languageOptions: { globals: { ...globals.node } },
  },
  // The browser tests run in node and hand callbacks to page.evaluate(),
  // which run in the page (document, DataTransfer, ...).
  {
    files: ["e2e/**/*.mjs"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
