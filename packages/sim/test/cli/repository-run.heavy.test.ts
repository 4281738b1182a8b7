/**
 * Tier 2 (docs/contributing.md, "Test tiers"): the real `moonpool` binary on the whole repository,
 * every simulation of every example at its configured size. Each example's own test shows its
 * simulation at a smaller size in tier 1.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readJson, runCli, tempDir } from "./helpers.ts";

const REPOSITORY = fileURLToPath(new URL("../../../../", import.meta.url));

describe("the repository's examples, all at once", () => {
  it("`moonpool run` on the repository exits 0: every planted bug is found (expectFailure), every other simulation passes", async () => {
    const out = await tempDir("repository");
    // Realms shared across seeds: a fresh realm per seed costs about a second of CPU, and the
    // Node-runtime examples run 450 seeds here (docs/decisions.md, seed isolation;
    // seed-isolation.test.ts covers isolation). Failures are still re-run alone before they are reported.
    const run = await runCli(["run", "--base-seed", "1", "--isolation", "shared", "--reporter", "json", "--out", out], {
      cwd: REPOSITORY,
    });
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    const json = await readJson(path.join(out, "report.json"));
    for (const entry of json.simulations) {
      expect(entry.status, entry.name).toBe("passed");
      if (entry.expectFailure === true) expect(entry.report.failedRuns, entry.name).toBeGreaterThan(0);
      else expect(entry.report.failedRuns, entry.name).toBe(0);
    }
    expect(json.simulations.filter((s: any) => s.expectFailure === true).length).toBe(20);
  });
});
