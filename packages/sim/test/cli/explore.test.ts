/**
 * `moonpool run --explore`: every root seed runs its budget of timelines (`--explore-budget`)
 * unless it fails first; by default a root ends at its first failing timeline, and
 * `--no-stop-on-failure` spends the whole budget.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readJson, runCli, tempDir } from "./helpers.ts";

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
    return { result, exploration: report.simulations[0].report.exploration };
  };

  it("gives every root seed its --explore-budget, and ends a root at its first failure by default", async () => {
    const { result, exploration } = await run("stop", ["--explore-budget", "45"]);
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
    const { exploration } = await run("no-stop", ["--explore-budget", "45", "--no-stop-on-failure"]);
    const perSeed = exploration.perSeed as PerSeed[];
    expect(exploration.config.stopOnFailure).toBe(false);
    for (const root of perSeed) expect(root.timelines).toBe(45);
    expect(perSeed.some((r) => r.firstBugAtTimeline !== null && r.firstBugAtTimeline < 45)).toBe(true);
  });

  it("--explore-total-budget splits one budget evenly over the root seeds", async () => {
    const { result, exploration } = await run("total", ["--explore-total-budget", "250", "--no-stop-on-failure"]);
    expect(result.stderr).toContain("exploring 20 timelines per root seed");
    const perSeed = exploration.perSeed as PerSeed[];
    expect(perSeed).toHaveLength(12);
    expect(exploration.config.maxRunsPerSeed).toBe(20);
    for (const root of perSeed) expect(root.timelines).toBe(20);
    expect(exploration.timelines).toBe(240);
  }, 300_000);

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
  }, 300_000);

  it("rejects a budget that is not a positive integer, naming the flag", async () => {
    const result = await runCli(["run", "gated", "--explore-budget", "0"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--explore-budget '0': expected a positive integer");
  });
});
