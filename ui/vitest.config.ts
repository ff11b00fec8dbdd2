import { defineConfig } from "vitest/config";
import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints one line, `N passed, M failed`, after Vitest's own report: the line
 * scripts/test.sh adds to its closing summary. A test file that could not
 * load, and an unhandled error, each count as one failure.
 */
class SummaryLine implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = errors.length;
    for (const m of modules) {
      failed += m.errors().length;
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
      }
    }
    console.log(`${passed} passed, ${failed} failed`);
  }
}

// Unit tests of the window's pure logic (src/lib); no DOM, no Svelte plugin.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
    // Times are shown and sent in this computer's zone: pin one with a
    // half-hour offset and no daylight saving (tests may switch it).
    env: { TZ: "Asia/Kolkata" },
    reporters: ["default", new SummaryLine()],
  },
});
