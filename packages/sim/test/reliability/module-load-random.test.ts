import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SimulationReport } from "../../src/index.ts";
import { readJson, runCli, tempDir } from "../cli/helpers.ts";
import { moduleRandom, moduleSteady } from "./fixtures/module-load.sim.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

describe("randomness drawn when a module loads, before any seed exists", () => {
  it("two runs in one process agree, but checking against a report of another process finds every seed", async () => {
    const dir = await tempDir("module-load");
    const args = [
      "run",
      "module-random",
      "module-steady",
      "--iterations",
      "3",
      "--base-seed",
      "8",
      "--workers",
      "1",
      "--reporter",
      "json",
      "--out",
      dir,
    ];
    const run = await runCli(args, { cwd: FIXTURES, isolation: "default" });
    expect(run.code, run.stderr).toBe(0);
    const file = await readJson(path.join(dir, "report.json"));
    const earlier = (name: string) =>
      SimulationReport.fromJSON(file.simulations.find((s: { name: string }) => s.name === name).report);

    // The value is fixed within this process, so the usual check cannot see it.
    expect((await moduleRandom.build().setBaseSeed(8).setIterations(3).checkDeterminism()).deterministic).toBe(true);
    const against = await moduleRandom.build().checkDeterminism({ against: earlier("module-random") });
    expect(against.deterministic).toBe(false);
    expect(against.recordedMismatches.map((m) => m.seed)).toEqual(earlier("module-random").seeds.map((s) => s.seed));
    expect(against.violation!.message).toContain(
      "The same Node and V8: look for state that outlives a seed, module-load-time randomness",
    );

    const steady = await moduleSteady.build().checkDeterminism({ against: earlier("module-steady") });
    expect(steady.deterministic).toBe(true);
    expect(steady.warnings).toEqual([]);
  });
});
