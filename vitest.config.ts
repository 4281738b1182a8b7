import { defineConfig } from "vitest/config";

export default defineConfig({
  // The workspace packages resolve to their TypeScript sources through tsconfig.json's `paths`
  // (as in tsc and tsx), so tests run without building dist/.
  resolve: { tsconfigPaths: true },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    // Simulation tests are CPU-bound; two cores here, so keep the pool small and
    // give long campaigns room (no test asserts on wall time).
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
