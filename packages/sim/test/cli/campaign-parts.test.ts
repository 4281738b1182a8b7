/**
 * In-process checks of the pieces the CLI builds on: one seed at a time with its own table,
 * absorbed in seed order, equals a sequential campaign; the stop rule agrees; shard blocks
 * partition the seed indexes; reports survive a JSON round trip.
 */
import { describe, expect, it } from "vitest";
import { SimulationReport } from "../../src/runner/report.ts";
import { AssertionTable } from "../../src/chaos/assertions/index.ts";
import { Campaign } from "../../src/runner/campaign.ts";
import { CoverageStopRule } from "../../src/runner/coverage-stop-rule.ts";
import { deriveSeed } from "../../src/engine/rng.ts";
import { parseShard, shardRange } from "../../src/cli/shard.ts";
import { UsageError } from "../../src/cli/errors.ts";
import { counter } from "./fixtures/counter.sim.ts";
import { plantedBug } from "./fixtures/planted-bug.sim.ts";

const view = (r: SimulationReport) => {
  const json = JSON.parse(JSON.stringify(r.toJSON())) as Record<string, unknown>;
  delete json.totalWallTimeMs;
  delete json.metrics;
  json.seeds = (json.seeds as Record<string, unknown>[]).map(({ wallTimeMs: _w, ...rest }) => rest);
  return json;
};

async function perSeed(build: () => ReturnType<typeof counter.build>, seeds: number[]) {
  const table = new AssertionTable();
  const results = [];
  for (const seed of seeds) {
    const { result, table: child } = await new Campaign(build().build()).runSingleSeed(seed);
    table.absorb(child, null);
    results.push(result);
  }
  return { table, results };
}

describe("Campaign.runSingleSeed + absorb in seed order", () => {
  it("equals running the seeds one after the other in one campaign (counts, watermarks, buckets, first failures)", async () => {
    for (const sim of [counter, plantedBug]) {
      const seeds = Array.from({ length: 8 }, (_, i) => deriveSeed(99, i));
      const sequential = await sim.build().setBaseSeed(99).setIterations(8).run();
      const { table, results } = await perSeed(sim.build, seeds);
      const parts = new SimulationReport({
        results,
        table,
        convergenceTimeout: false,
        saturation: null,
        wallTimeMs: 0,
        steppingMode: "fast",
      });
      expect(view(parts)).toEqual(view(sequential));
    }
  });

  it("stops an until-stable campaign at the same seed as Campaign.run", async () => {
    const sequential = await counter.build().setBaseSeed(7).untilCoverageStable(3, 30).run();
    const rule = new CoverageStopRule(3, 30);
    const table = new AssertionTable();
    let ran = 0;
    for (let i = 0; i < 30; i++) {
      const { table: child } = await new Campaign(counter.build().build()).runSingleSeed(deriveSeed(7, i));
      table.absorb(child, null);
      ran++;
      if (rule.afterSeed(table, ran)) break;
    }
    expect(ran).toBe(sequential.iterations);
    expect(rule.saturation).toEqual(sequential.saturation);
  });

  it("round-trips a report through toJSON / fromJSON", async () => {
    const report = await plantedBug.build().setBaseSeed(5).setIterations(6).run();
    const again = SimulationReport.fromJSON(JSON.parse(JSON.stringify(report.toJSON())));
    expect(JSON.stringify(again.toJSON())).toBe(JSON.stringify(report.toJSON()));
  });
});

describe("shards", () => {
  it("partition the seed indexes into contiguous blocks, each index exactly once", () => {
    for (let total = 0; total <= 23; total++) {
      for (let count = 1; count <= 6; count++) {
        const blocks = Array.from({ length: count }, (_, i) => shardRange(total, { index: i + 1, count }));
        expect(blocks[0]!.start).toBe(0);
        expect(blocks[count - 1]!.end).toBe(total);
        for (let i = 1; i < count; i++) expect(blocks[i]!.start).toBe(blocks[i - 1]!.end);
      }
    }
  });

  it("parse i/n, auto/n from the environment, and reject anything else with the expected form", () => {
    expect(parseShard("2/3", {})).toEqual({ index: 2, count: 3 });
    expect(parseShard("auto/4", { JOB_COMPLETION_INDEX: "0" })).toEqual({ index: 1, count: 4 });
    expect(parseShard("auto/4", { MOONPOOL_SHARD_INDEX: "3" })).toEqual({ index: 3, count: 4 });
    for (const bad of ["3", "0/3", "4/3", "a/b", "1/0", "1/2/3"]) expect(() => parseShard(bad, {})).toThrow(UsageError);
    expect(() => parseShard("auto/2", {})).toThrow(/neither JOB_COMPLETION_INDEX nor MOONPOOL_SHARD_INDEX/);
    expect(() => parseShard("5/4", {})).toThrow(/the form is --shard i\/n/);
  });
});
