/**
 * The worker pool gives the same report whatever the number of workers: plain seeds (absorbed
 * in seed order), the until-stable stop rule (evaluated in seed order; speculative seeds past the
 * stop are discarded) and exploration (rounds of a fixed number of root seeds). Compared without
 * the wall-clock fields (`host`, `wallTimeMs`, `totalWallTimeMs`), which are all that may differ.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readJson, runCli, tempDir, withoutWallClock } from "./helpers.ts";

describe("--workers 1 and --workers 2", () => {
  let out: string;
  beforeAll(async () => {
    out = await tempDir("workers");
  });

  const run = async (name: string, workers: number, args: string[]) => {
    const result = await runCli([
      "run",
      ...args,
      "--workers",
      String(workers),
      "--reporter",
      "json",
      "--out",
      path.join(out, `${name}-${workers}`),
    ]);
    return { result, report: await readJson(path.join(out, `${name}-${workers}`, "report.json")) };
  };

  it("give identical reports for plain seeds and until-stable campaigns, failures included", async () => {
    const args = ["counter", "planted-bug", "--until-stable", "4,40", "--base-seed", "11"];
    const one = await run("stable", 1, args);
    const two = await run("stable", 2, args);
    expect(one.result.code).toBe(1);
    expect(two.result.code).toBe(1);
    expect(one.report.host.workers).toBe(1);
    expect(two.report.host.workers).toBe(2);
    expect(withoutWallClock(two.report)).toEqual(withoutWallClock(one.report));
    const counter = one.report.simulations[0].report;
    expect(counter.saturation.saturated).toBe(true);
    expect(counter.iterations).toBeLessThan(40);
    expect(one.report.simulations[1].report.failedRuns).toBeGreaterThan(0);
  });

  it("give identical exploration reports, and an exploration bug replays from its printed command", async () => {
    const args = ["gated", "--iterations", "10", "--base-seed", "5"];
    const one = await run("explore", 1, args);
    const two = await run("explore", 2, args);
    expect(withoutWallClock(two.report)).toEqual(withoutWallClock(one.report));
    const entry = one.report.simulations[0];
    expect(entry.explore).toBe(true);
    expect(entry.report.exploration.timelines).toBeGreaterThan(10);
    const bug = entry.failures.find((f: { recipe: string }) => f.recipe !== "");
    expect(bug, "the explorer finds the gated bug in 10 root seeds").toBeDefined();
    expect(bug.replayCommand).toBe(`npx moonpool replay gated --seed ${bug.seed} --recipe "${bug.recipe}"`);
    const replay = await runCli(["replay", "gated", "--seed", String(bug.seed), "--recipe", bug.recipe, "--no-trace"]);
    expect(replay.code).toBe(1);
    const recipe = entry.report.exploration.bugRecipes.find(
      (r: { seed: number; recipe: string }) => r.seed === bug.seed && r.recipe === bug.recipe,
    );
    expect(replay.stdout).toContain(`hash=${recipe.traceHash}`);
    expect(replay.stdout).toContain('assertAlways("gated bug: three gates passed") failed');
  });

  it("give identical adaptive campaigns, whose report says how the budget was split", async () => {
    // Realms reused: a fresh realm per timeline is the heavy tier's (adaptive-campaign.heavy.test.ts).
    const args = ["gated", "--budget", "48", "--base-seed", "5", "--isolation", "shared"];
    const one = await run("adaptive", 1, args);
    const two = await run("adaptive", 2, args);
    expect(withoutWallClock(two.report)).toEqual(withoutWallClock(one.report));
    const entry = one.report.simulations[0];
    expect(entry.plan).toMatchObject({ kind: "adaptive", timelines: 48, baseSeed: 5 });
    const campaign = entry.report.campaign;
    expect(campaign.timelines).toBe(48);
    expect(campaign.arms.fresh.timelines + campaign.arms.continuation.timelines).toBe(48);
    expect(campaign.stopReason).toMatch(/^spent the budget of 48 timelines/);
    // Not adaptive: no campaign field.
    const plain = await run("plain", 1, ["gated", "--iterations", "3", "--base-seed", "5"]);
    expect(plain.report.simulations[0].report.campaign).toBeNull();
  });
});
