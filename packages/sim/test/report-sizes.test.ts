/**
 * `SeedResult.sizes` in the JSON report: what the workloads got from `ctx.size(name, n)`, by
 * name, present when a workload asked (lowered by a replayed run's `size.NAME` overrides) and
 * absent when none did; the report validates against report.schema.json either way.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { SimulationBuilder, SimulationReport, type SimContext, type Workload } from "../src/index.ts";
import { validate } from "./cli/json-schema.ts";

const SCHEMA_FILE = new URL("../report.schema.json", import.meta.url);

class Sized implements Workload {
  readonly name = "sized";
  constructor(private readonly ask: boolean) {}
  async run(ctx: SimContext): Promise<void> {
    const ops = this.ask ? ctx.size("ops", 5) : 5;
    for (let i = 0; i < ops; i++) await ctx.time.sleep(ctx.random.randomRange(1, 10));
  }
}

const builder = (ask: boolean) =>
  new SimulationBuilder()
    .workloadFactory(() => new Sized(ask))
    .networkFaults("none")
    .setIterations(2);

async function reportJson(b: SimulationBuilder): Promise<Record<string, any>> {
  return JSON.parse(JSON.stringify((await b.run()).toJSON()));
}

describe("sizes in the JSON report", () => {
  it("carries each seed's sizes, lowered by a replay's overrides, and validates against the schema", async () => {
    const schema = JSON.parse(await readFile(SCHEMA_FILE, "utf8"));
    const simulationReport = { $defs: schema.$defs, $ref: "#/$defs/simulationReport" };
    const json = await reportJson(builder(true));
    expect(json.seeds.map((s: { sizes?: unknown }) => s.sizes)).toEqual([{ ops: 5 }, { ops: 5 }]);
    expect(validate(simulationReport, json)).toEqual([]);
    expect(SimulationReport.fromJSON(json).seeds[0]!.sizes).toEqual({ ops: 5 });
    const replayed = await reportJson(builder(true).replayTimeline(json.seeds[0].seed, "", "size.ops=2"));
    expect(replayed.seeds[0].sizes).toEqual({ ops: 2 });
    expect(replayed.seeds[0].eventsProcessed).toBeLessThan(json.seeds[0].eventsProcessed);
    // The schema does check the field: a negative size is refused.
    expect(validate(simulationReport, { ...json, seeds: [{ ...json.seeds[0], sizes: { ops: -1 } }] })).not.toEqual([]);
  });

  it("has no sizes field when no workload asks", async () => {
    const schema = JSON.parse(await readFile(SCHEMA_FILE, "utf8"));
    const json = await reportJson(builder(false));
    for (const seed of json.seeds) expect(Object.keys(seed)).not.toContain("sizes");
    expect(validate({ $defs: schema.$defs, $ref: "#/$defs/simulationReport" }, json)).toEqual([]);
  });
});
