/**
 * Shards: 1/3 + 2/3 + 3/3 (the last one through JOB_COMPLETION_INDEX) merged equal one unsharded
 * run, and `merge` is byte-identical for the same inputs in any order.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readJson, runCli, tempDir, withoutWallClock } from "./helpers.ts";

const CAMPAIGN = ["counter", "planted-bug", "--iterations", "14", "--base-seed", "21", "--reporter", "json"];

describe("--shard and merge", () => {
  let out: string;
  let shardFiles: string[];

  beforeAll(async () => {
    out = await tempDir("shard");
    const runs = await Promise.all([
      runCli(["run", ...CAMPAIGN, "--out", path.join(out, "whole")]),
      runCli(["run", ...CAMPAIGN, "--shard", "1/3", "--out", path.join(out, "shards")]),
      runCli(["run", ...CAMPAIGN, "--shard", "2/3", "--out", path.join(out, "shards")]),
      runCli(["run", ...CAMPAIGN, "--shard", "auto/3", "--out", path.join(out, "shards")], {
        env: { JOB_COMPLETION_INDEX: "2" },
      }),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(1); // planted-bug fails in every part
    shardFiles = [1, 2, 3].map((i) => path.join(out, "shards", `report.shard-${i}-of-3.json`));
  });

  it("each shard runs its block of seed indexes; together exactly the unsharded seeds, none twice", async () => {
    const whole = await readJson(path.join(out, "whole", "report.json"));
    const shards = await Promise.all(shardFiles.map(readJson));
    expect(shards.map((s) => s.simulations[0].seedIndexRange)).toEqual([
      { start: 0, end: 4 },
      { start: 4, end: 9 },
      { start: 9, end: 14 },
    ]);
    const seeds = shards.flatMap((s) => s.simulations[0].report.seeds.map((x: { seed: number }) => x.seed));
    expect(seeds).toEqual(whole.simulations[0].report.seeds.map((x: { seed: number }) => x.seed));
    expect(new Set(seeds).size).toBe(14);
  });

  it("merged in any order, the shards equal one unsharded run, byte for byte the same file", async () => {
    const mergedA = path.join(out, "merged-a.json");
    const mergedB = path.join(out, "merged-b.json");
    const a = await runCli(["merge", shardFiles[2]!, shardFiles[0]!, shardFiles[1]!, "-o", mergedA]);
    const b = await runCli(["merge", shardFiles[1]!, shardFiles[2]!, shardFiles[0]!, "-o", mergedB]);
    expect(a.code, a.stderr).toBe(1); // the merged campaign has planted-bug's failures
    expect(b.code).toBe(1);
    expect(await readFile(mergedB, "utf8")).toBe(await readFile(mergedA, "utf8"));
    const merged = await readJson(mergedA);
    const whole = await readJson(path.join(out, "whole", "report.json"));
    expect(merged.host).toBeNull();
    expect(withoutWallClock(merged)).toEqual(withoutWallClock(whole));
    // The parts that a merge has to combine, spelled out.
    const counter = merged.simulations[0].report;
    expect(counter.assertionDetails.find((d: { message: string }) => d.message === "a long delay").watermark).toBe(
      whole.simulations[0].report.assertionDetails.find((d: { message: string }) => d.message === "a long delay")
        .watermark,
    );
    expect(counter.bucketSummaries[0].bucketsDiscovered).toBeGreaterThan(1);
  });

  it("refuses to merge an incomplete or overlapping set of shards, saying which", async () => {
    const missing = await runCli(["merge", shardFiles[0]!, shardFiles[2]!]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("shard(s) 2/3 missing");
    const twice = await runCli(["merge", shardFiles[0]!, shardFiles[0]!, shardFiles[1]!, shardFiles[2]!]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("appears twice");
  });
});
