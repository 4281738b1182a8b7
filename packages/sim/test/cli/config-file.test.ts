/** moonpool.config.ts: the until-stable rule with its minimum budget, and the errors that say what to change. */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/cli/config-file.ts";
import { SimulationLoadError, UsageError } from "../../src/cli/errors.ts";
import { tempDir } from "./helpers.ts";

async function configWith(body: string): Promise<string> {
  const dir = await tempDir("config");
  await writeFile(path.join(dir, "moonpool.config.mjs"), `export default ${body};\n`);
  return dir;
}

describe("moonpool.config untilStable", () => {
  it("takes quietSeeds, maxSeeds and an optional minSeeds", async () => {
    const withMin = await loadConfig(
      await configWith("{ untilStable: { quietSeeds: 10, maxSeeds: 900, minSeeds: 300 } }"),
    );
    expect(withMin.untilStable).toEqual({ quietSeeds: 10, maxSeeds: 900, minSeeds: 300 });
    const without = await loadConfig(await configWith("{ untilStable: { quietSeeds: 5, maxSeeds: 50 } }"));
    expect(without.untilStable).toEqual({ quietSeeds: 5, maxSeeds: 50 });
  });

  it("rejects a minimum above the maximum, or one that is not a positive integer", async () => {
    const above = loadConfig(await configWith("{ untilStable: { quietSeeds: 10, maxSeeds: 100, minSeeds: 500 } }"));
    await expect(above).rejects.toThrow(/untilStable.minSeeds \(500\) cannot exceed untilStable.maxSeeds \(100\)/);
    const bad = loadConfig(await configWith("{ untilStable: { quietSeeds: 10, maxSeeds: 100, minSeeds: -1 } }"));
    await expect(bad).rejects.toThrow(/untilStable.minSeeds/);
    await expect(bad).rejects.toSatisfy((e) => e instanceof SimulationLoadError || e instanceof UsageError);
  });
});

describe("moonpool.config values in error messages", () => {
  it.each([
    ["{ iterations: NaN }", "iterations must be a positive integer, got NaN"],
    ["{ iterations: Infinity }", "iterations must be a positive integer, got Infinity"],
    ["{ workers: 2.5 }", "workers must be a positive integer, got 2.5"],
    ['{ workers: "4" }', "workers must be a positive integer, got '4'"],
    ["{ iterations: 10n }", "iterations must be a positive integer, got 10n"],
    ['{ include: ["*.sim.ts", 3] }', "include must be an array of glob strings, got [ '*.sim.ts', 3 ]"],
    ['{ reportDir: "" }', "reportDir must be a non-empty path, got ''"],
  ])("%s is named as written", async (body, message) => {
    await expect(loadConfig(await configWith(body))).rejects.toThrow(message);
  });

  it("a valid value passes", async () => {
    expect((await loadConfig(await configWith("{ iterations: 12, workers: 3 }"))).iterations).toBe(12);
  });
});
