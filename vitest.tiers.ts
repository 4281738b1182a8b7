/**
 * The two tiers of the test suite (docs/contributing.md, "Test tiers"). Tier 1 (`npm test`,
 * vitest.config.ts) is every `*.test.ts` except those `HEAVY_TESTS` names; tier 2 (`npm run
 * test:heavy`, vitest.heavy.config.ts) is exactly those: whole-repository runs, 2,000-seed passes,
 * the browser and the packed-package install. `.ci/run` runs both.
 */
import { defineConfig } from "vitest/config";
import { INTERRUPT_BUDGET_FLAG } from "./packages/sim/bin/v8-flags.mjs";

export const TEST_ROOTS = ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"];
/**
 * Tier 2: any `*.heavy.test.ts`, and whole files that are heavy throughout. cli/workers.test.ts
 * compares whole CLI campaigns on 1 and 2 workers; tier 1 keeps that equivalence at the library
 * level (run-workers.test.ts, explore-root-sharing.test.ts).
 */
export const HEAVY_TESTS = [
  "**/*.heavy.test.ts",
  "packages/sim/test/pack-install.test.ts",
  "packages/sim/test/cli/html-report-browser.test.ts",
  "packages/sim/test/cli/workers.test.ts",
];

/**
 * A per-test timeout is a backstop for a hang, never a limit on work: tests bound their work by
 * counts (seeds, events, timelines), so the timeout is set far above what any test needs on a
 * loaded machine.
 */
const BACKSTOP_MS = 1_800_000;

export function tierConfig(include: string[], exclude: string[]) {
  return defineConfig({
    // The workspace packages resolve to their TypeScript sources through tsconfig.json's `paths`
    // (as in tsc and tsx), so tests run without building dist/.
    resolve: { tsconfigPaths: true },
    test: {
      include,
      exclude: ["**/node_modules/**", ...exclude],
      // The CLI processes and pool workers the tests start run the compiled packages, built here.
      globalSetup: ["packages/sim/test/support/compiled-packages.ts"],
      setupFiles: ["packages/sim/test/support/one-simulation-at-a-time.ts"],
      // Simulation tests are CPU-bound; two cores here, so keep the pool small.
      pool: "forks",
      // The interrupt budget the `moonpool` command runs with: the tests' in-process campaigns and
      // fresh realms took 9 % less CPU with it (docs/decisions.md D56).
      execArgv: [INTERRUPT_BUDGET_FLAG],
      maxWorkers: 2,
      testTimeout: BACKSTOP_MS,
      hookTimeout: BACKSTOP_MS,
    },
  });
}
