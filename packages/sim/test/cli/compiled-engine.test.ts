/**
 * The suite runs the CLI and its workers from the compiled dist/ (support/compiled-packages.ts,
 * docs/decisions.md D51). The sources must keep working as the repository's own command, and both
 * copies must run a seed alike: the same seeds, run from src/ and from dist/, give the same trace
 * hashes, and so does the planted bug's failing seed.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readJson, runCli, tempDir } from "./helpers.ts";

interface SeedHash {
  readonly seed: number;
  readonly traceHash: string;
}

async function hashes(fromDist: "0" | "1", simulation: string): Promise<{ code: number | null; seeds: SeedHash[] }> {
  const out = await tempDir(`compiled-${fromDist}`);
  // Three seeds, one worker, a fresh realm each: enough to load the engine in both the command and
  // its workers, and the planted bug fails at one of them from base seed 3.
  const result = await runCli(
    ["run", simulation, "--iterations", "3", "--base-seed", "3", "--workers", "1", "--reporter", "json", "--out", out],
    { env: { MOONPOOL_FROM_DIST: fromDist }, isolation: "default" },
  );
  const report = await readJson(path.join(out, "report.json"));
  return {
    code: result.code,
    seeds: report.simulations[0].report.seeds.map((s: SeedHash) => ({ seed: s.seed, traceHash: s.traceHash })),
  };
}

describe("the compiled engine and the sources", () => {
  it.each(["counter", "planted-bug"])(
    "run %s with the same verdict and the same per-seed trace hashes",
    async (sim) => {
      const [sources, compiled] = await Promise.all([hashes("0", sim), hashes("1", sim)]);
      expect(sources.seeds).toHaveLength(3);
      expect(compiled).toEqual(sources);
      expect(sources.code).toBe(sim === "counter" ? 0 : 1);
    },
  );
});
