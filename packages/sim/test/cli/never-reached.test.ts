/**
 * Assertions of every kind that a simulation declares but no seed reaches: a sometimes that never
 * ran is listed in the assertion table (MISS), in "Never Evaluated", in the saturation count, the
 * JSON report and the HTML coverage table, and `--strict-coverage` fails on it alone. Without such
 * an assertion nothing is listed and strict coverage passes.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { readJson, runCli } from "./helpers.ts";

// Inside the repository, where `@moonpool/sim` resolves to the sources.
const DIR = fileURLToPath(new URL("../../../../.vitest-cache/never-reached/", import.meta.url));

const NEVER_SOMETIMES = `import { SimulationBuilder, assertAlways, assertSometimes, assertSometimesGreaterThan,
  assertUnreachable, defineSimulation, type SimContext } from "@moonpool/sim";

export const neverSometimes = defineSimulation({
  name: "never-sometimes",
  description: "its retry path never runs: the sometimes on it is never reached",
  build: () =>
    new SimulationBuilder().workloadFactory(() => ({
      name: "client",
      async run(ctx: SimContext) {
        const retries: number[] = [];
        await ctx.time.sleep(ctx.random.randomRange(1, 10));
        for (const attempt of retries) {
          assertSometimes(attempt > 0, "a request was retried");
          assertSometimesGreaterThan(attempt, 2, "three retries in a row");
        }
        if (retries.length > 99) assertUnreachable("too many retries");
        assertSometimes(true, "the client finished");
        assertAlways(true, "the client saw no error");
      },
    })),
});
`;

/** The same simulation with its retry path reached: nothing is never reached. */
const ALL_REACHED = NEVER_SOMETIMES.replace("never-sometimes", "all-reached")
  .replace("neverSometimes", "allReached")
  .replace("const retries: number[] = [];", "const retries: number[] = [1, 3];");

describe("declared but never reached", () => {
  beforeAll(async () => {
    await rm(DIR, { recursive: true, force: true });
    await mkdir(DIR, { recursive: true });
    await writeFile(path.join(DIR, "never-sometimes.sim.ts"), NEVER_SOMETIMES);
    await writeFile(path.join(DIR, "all-reached.sim.ts"), ALL_REACHED);
  });

  it("a sometimes no seed reached: in the table, in Never Evaluated, the hit count, JSON and HTML", async () => {
    const args = ["run", "never-sometimes", "--seeds", "1,2,3", "-j", "1", "-r", "text,json,html", "-o", "out"];
    const result = await runCli(args, { cwd: DIR });
    expect(result.code, result.stderr).toBe(0); // listed, but only --strict-coverage fails on it
    expect(result.stdout).toContain(
      'MISS  [sometimes]  "a request was retried"  never reached (never-sometimes.sim.ts:14)',
    );
    expect(result.stdout).toContain(
      'MISS  [numericSometimes]  "three retries in a row"  never reached (never-sometimes.sim.ts:15)',
    );
    expect(result.stdout).toContain("--- Never Evaluated: 2 declared assertions no seed reached");
    expect(result.stdout).toContain('- [sometimes] "a request was retried" (never-sometimes.sim.ts:14)');
    // The unreachable assertion passes by never running: not listed.
    expect(result.stdout).not.toContain("too many retries");
    const entry = (await readJson(path.join(DIR, "out", "report.json"))).simulations[0];
    expect(entry.neverEvaluated).toEqual([
      { message: "a request was retried", kind: "sometimes", where: "never-sometimes.sim.ts:14" },
      { message: "three retries in a row", kind: "numericSometimes", where: "never-sometimes.sim.ts:15" },
    ]);
    const html = await readFile(path.join(DIR, "out", "report.html"), "utf8");
    expect(html).toContain('"neverReached":"never-sometimes.sim.ts:14"');
  });

  it("the until-stable hit count includes the never-reached sometimes", async () => {
    const result = await runCli(["run", "never-sometimes", "--until-stable", "2,5", "-j", "1", "--base-seed", "1"], {
      cwd: DIR,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("1/3 sometimes/reachable hit (2 never reached)");
  });

  it("--strict-coverage fails on a never-reached sometimes, and passes once every assertion is reached", async () => {
    const strict = ["--seeds", "1,2,3", "-j", "1", "--strict-coverage"];
    const failing = await runCli(["run", "never-sometimes", ...strict], { cwd: DIR });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(/✗ never-sometimes/);
    const passing = await runCli(["run", "all-reached", ...strict], { cwd: DIR });
    expect(passing.code, passing.stdout + passing.stderr).toBe(0);
    expect(passing.stdout).not.toContain("Never Evaluated");
    expect(passing.stdout).not.toContain("never reached");
  });
});
