import type { Reporter, TestModule } from "vitest/node";

/** Ends `vitest run` with a plain "vitest: N passed, N failed" line for CI log scanners. */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === "passed") passed++;
        else if (s === "failed") {
          failed++;
          // Name each failure on its own line, so CI logs that keep only the
          // tail still say which test broke and why.
          const why = t.result().errors?.[0]?.message?.split("\n")[0] ?? "";
          console.log(`vitest FAILED: ${m.moduleId.replace(/^.*\/src\//, "src/")} > ${t.fullName}: ${why}`);
        }
        else skipped++;
      }
    }
    console.log(`vitest: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
  }
}
