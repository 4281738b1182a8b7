/**
 * `moonpool run --explore`: every root seed runs its budget of timelines (`--explore-budget`)
 * unless it fails first; by default a root ends at its first failing timeline, and
 * `--no-stop-on-failure` spends the whole budget.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, readJson, runCli, tempDir } from "./helpers.ts";
import { gated } from "./fixtures/gated.sim.ts";

interface PerSeed {
  seed: number;
  timelines: number;
  firstBugAtTimeline: number | null;
}

describe("run --explore", () => {
  let out: string;
  beforeAll(async () => {
    out = await tempDir("explore");
  });

  // Budgets are the subject, not isolation: these campaigns reuse realms (12 roots each). The
  // comparison with the builder keeps the default, a fresh realm per root.
  const SHARED = ["--isolation", "shared"];
  const run = async (name: string, extra: string[]) => {
    const dir = path.join(out, name);
    const result = await runCli([
      "run",
      "gated",
      "--iterations",
      "12",
      "--base-seed",
      "5",
      "--workers",
      "2",
      "--reporter",
      "json",
      "--out",
      dir,
      ...extra,
    ]);
    const report = await readJson(path.join(dir, "report.json"));
    const { exploration, seeds } = report.simulations[0].report;
    return { result, exploration, traceHashes: (seeds as { traceHash: string }[]).map((s) => s.traceHash) };
  };

  it("gives every root seed its --explore-budget, and ends a root at its first failure by default", async () => {
    const { result, exploration } = await run("stop", ["--explore-budget", "45", ...SHARED]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("exploring 45 timelines per root seed (or to its first failure)");
    const perSeed = exploration.perSeed as PerSeed[];
    expect(perSeed).toHaveLength(12);
    expect(exploration.config.maxRunsPerSeed).toBe(45);
    expect(exploration.config.stopOnFailure).toBe(true);
    const failed = perSeed.filter((r) => r.firstBugAtTimeline !== null);
    expect(failed.length, "some roots find the gated bug").toBeGreaterThan(0);
    for (const root of perSeed) {
      if (root.firstBugAtTimeline === null) expect(root.timelines, `root ${root.seed} ran its whole budget`).toBe(45);
      else expect(root.timelines, `root ${root.seed} stopped at its first bug`).toBe(root.firstBugAtTimeline);
    }
    expect(exploration.timelines).toBe(perSeed.reduce((n, r) => n + r.timelines, 0));
  });

  it("--no-stop-on-failure spends every root's whole budget, bugs or not", async () => {
    const { exploration } = await run("no-stop", ["--explore-budget", "45", "--no-stop-on-failure", ...SHARED]);
    const perSeed = exploration.perSeed as PerSeed[];
    expect(exploration.config.stopOnFailure).toBe(false);
    for (const root of perSeed) expect(root.timelines).toBe(45);
    expect(perSeed.some((r) => r.firstBugAtTimeline !== null && r.firstBugAtTimeline < 45)).toBe(true);
  });

  it("explores a multi-root campaign exactly as the builder does, with or without workers", async () => {
    const cli = await run("builder", ["--explore-budget", "45", "--no-stop-on-failure"]);
    const reportOf = (workers: number) => {
      const builder = gated.build();
      return builder
        .enableExploration({ ...builder.build().exploration!, maxRunsPerSeed: 45, stopOnFailure: false, workers })
        .simulationSource(path.join(FIXTURES, "gated.sim.ts"), "gated")
        .setIterations(12)
        .setBaseSeed(5)
        .run();
    };
    for (const workers of [0, 2]) {
      const report = await reportOf(workers);
      // 12 roots: a round of 8, then one of 4 that starts from the first round's table.
      expect(report.exploration!.perSeed).toHaveLength(12);
      expect(JSON.stringify(report.exploration), `workers: ${workers}`).toBe(JSON.stringify(cli.exploration));
      expect(report.seeds.map((s) => s.traceHash)).toEqual(cli.traceHashes);
    }
  });

  it("--explore-total-budget splits one budget evenly over the root seeds", async () => {
    const { result, exploration } = await run("total", [
      "--explore-total-budget",
      "250",
      "--no-stop-on-failure",
      ...SHARED,
    ]);
    expect(result.stderr).toContain("exploring 20 timelines per root seed");
    const perSeed = exploration.perSeed as PerSeed[];
    expect(perSeed).toHaveLength(12);
    expect(exploration.config.maxRunsPerSeed).toBe(20);
    for (const root of perSeed) expect(root.timelines).toBe(20);
    expect(exploration.timelines).toBe(240);
  });

  it("--explore-total-budget needs a fixed number of seeds and excludes --explore-budget", async () => {
    const both = await runCli([
      "run",
      "gated",
      "--iterations",
      "4",
      "--explore-budget",
      "5",
      "--explore-total-budget",
      "50",
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(
      "--explore-budget (per root seed) and --explore-total-budget (all root seeds together)",
    );
    const open = await runCli(["run", "gated", "--until-stable", "5,50", "--explore-total-budget", "50"]);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain("--explore-total-budget needs a fixed number of root seeds");
    const zero = await runCli(["run", "gated", "--iterations", "4", "--explore-total-budget", "0"]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("--explore-total-budget '0': expected a positive integer");
  });

  it("rejects a budget that is not a positive integer, naming the flag", async () => {
    const result = await runCli(["run", "gated", "--explore-budget", "0"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--explore-budget '0': expected a positive integer");
  });
});
