/**
 * Shards of planted bugs and damaged shards. A shard of an `expectFailure` simulation that holds
 * no failing seed passes ("no failure in this shard"): only the merged campaign is judged. `merge`
 * refuses a shard that does not hold exactly the seeds of its plan, and values outside the
 * schema's ranges.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { readJson, runCli, tempDir, type CliResult } from "./helpers.ts";

const ROBUSTNESS = fileURLToPath(new URL("./fixtures-robustness/", import.meta.url));
// With base seed 7, planted-rare fails only at seed #5 (shard 3 of 3); planted-never never fails.
const CAMPAIGN = ["planted-rare", "planted-never", "--iterations", "6", "--base-seed", "7", "--reporter", "json"];

describe("sharded expectFailure simulations and damaged shards", () => {
  let out: string;
  let shardRuns: CliResult[];
  let shardFiles: string[];

  beforeAll(async () => {
    out = await tempDir("shard-checks");
    shardRuns = await Promise.all(
      [1, 2, 3].map((i) => runCli(["run", ...CAMPAIGN, "--shard", `${i}/3`, "--out", out], { cwd: ROBUSTNESS })),
    );
    shardFiles = [1, 2, 3].map((i) => path.join(out, `report.shard-${i}-of-3.json`));
  });

  it("each shard exits 0: a shard without a failing seed of a planted bug is not a failure", async () => {
    for (const r of shardRuns) expect(r.code, r.stderr).toBe(0);
    const shards = await Promise.all(shardFiles.map(readJson));
    const failing = shards.map((s) =>
      s.simulations.map((e: { name: string; report: { failedRuns: number } }) => [e.name, e.report.failedRuns]),
    );
    expect(failing).toEqual([
      [
        ["planted-never", 0],
        ["planted-rare", 0],
      ],
      [
        ["planted-never", 0],
        ["planted-rare", 0],
      ],
      [
        ["planted-never", 0],
        ["planted-rare", 1],
      ],
    ]);
    for (const s of shards) for (const e of s.simulations) expect(e.status).toBe("passed");
    expect(shardRuns[0]!.stderr).toMatch(/✓ planted-rare {2}no failure in this shard \(expectFailure: merge judges/);
    expect(shardRuns[2]!.stderr).toMatch(/✓ planted-rare {2}failed as expected/);
  });

  it("an unsharded run still judges the planted bug itself", async () => {
    const whole = await runCli(["run", "planted-never", "--iterations", "6", "--base-seed", "7"], { cwd: ROBUSTNESS });
    expect(whole.code, whole.stderr).toBe(1);
    expect(whole.stderr).toContain("expected to fail (expectFailure), but no seed failed");
  });

  it("the merge judges the campaign: the planted bug found in one shard passes, the one never found fails", async () => {
    const merged = path.join(out, "merged.json");
    const result = await runCli(["merge", ...shardFiles, "-o", merged], { cwd: ROBUSTNESS });
    expect(result.code, result.stderr).toBe(1);
    const report = await readJson(merged);
    const status = Object.fromEntries(
      report.simulations.map((e: { name: string; status: string }) => [e.name, e.status]),
    );
    expect(status).toEqual({ "planted-never": "failed", "planted-rare": "passed" });
    expect(result.stderr).toMatch(/✗ planted-never {2}expected to fail \(expectFailure\), but no seed failed/);
    expect(result.stderr).toMatch(/✓ planted-rare {2}failed as expected/);
  });

  /** Shard 1's report with `edit` applied to its planted-never entry, written beside the others. */
  async function damaged(name: string, edit: (entry: any) => void): Promise<string> {
    const report = JSON.parse(await readFile(shardFiles[0]!, "utf8"));
    edit(report.simulations.find((e: { name: string }) => e.name === "planted-never"));
    const file = path.join(out, name);
    await writeFile(file, JSON.stringify(report, null, 2));
    return file;
  }

  it("refuses a shard whose seeds were removed, naming the missing indexes (exit 2)", async () => {
    const emptied = await damaged("emptied.json", (entry) => {
      entry.report.seeds = [];
    });
    const result = await runCli(["merge", emptied, shardFiles[1]!, shardFiles[2]!, "-o", path.join(out, "x.json")]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `simulation 'planted-never': ${emptied} (shard 1/3) is missing seeds #0, #1 of its plan (#0..#1)`,
    );
    const oneLess = await damaged("one-less.json", (entry) => {
      entry.report.seeds = entry.report.seeds.slice(1);
      entry.report.iterations = entry.report.seeds.length;
    });
    const second = await runCli(["merge", oneLess, shardFiles[1]!, shardFiles[2]!, "-o", path.join(out, "y.json")]);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toContain("is missing seed #0 of its plan (#0..#1)");
  });

  it("refuses a shard whose block or seed count does not match its plan", async () => {
    const moved = await damaged("moved.json", (entry) => {
      entry.seedIndexRange = { start: 0, end: 1 };
    });
    const result = await runCli(["merge", moved, shardFiles[1]!, shardFiles[2]!, "-o", path.join(out, "z.json")]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain("says it ran seeds #0..#0, but its plan gives that shard #0..#1");
    const miscounted = await damaged("miscounted.json", (entry) => {
      entry.report.iterations = 5;
    });
    const second = await runCli(["merge", miscounted, shardFiles[1]!, shardFiles[2]!, "-o", path.join(out, "w.json")]);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toContain("counts 5 seeds but holds 2");
  });

  it("refuses values outside their schema's range", async () => {
    const negative = await damaged("negative.json", (entry) => {
      entry.report.seeds[0].simulatedTimeMs = -1e308;
    });
    const result = await runCli(["merge", negative, shardFiles[1]!, shardFiles[2]!, "-o", path.join(out, "v.json")]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/\/simulations\/0\/report\/seeds\/0\/simulatedTimeMs must be >= 0/);
  });
});
