/**
 * The adaptive campaign (explore/campaign-search.ts): one budget of timelines split between fresh
 * root seeds and continuations. The same base seed and budget give the same report twice, in this
 * thread and on two workers; two base seeds differ; the report's `campaign` field says how the
 * budget was split and why the campaign stopped, and is null for a campaign that is not adaptive.
 */
import { describe, expect, it } from "vitest";
import { gatedSimulation } from "./fixtures/gated-explore.sim.ts";
import type { SimulationReport } from "../src/runner/report.ts";
import { DEFAULT_CAMPAIGN_TIMELINES, DEFAULT_ITERATION_CONTROL } from "../src/runner/config.ts";
import { SimulationBuilder } from "../src/runner/builder.ts";
import { checkThenAct, threeStepRace } from "./fixtures/campaign-bugs.ts";
import { readFileSync } from "node:fs";
import { validate } from "./cli/json-schema.ts";

const SCHEMA = JSON.parse(readFileSync(new URL("../report.schema.json", import.meta.url), "utf8"));
const REPORT_SCHEMA = { $defs: SCHEMA.$defs, $ref: "#/$defs/simulationReport" };

const SOURCE = new URL("./fixtures/gated-explore.sim.ts", import.meta.url).href;

function gated(budget: number, baseSeed: number): SimulationBuilder {
  return gatedSimulation().campaignBudget(budget).setBaseSeed(baseSeed).simulationSource(SOURCE, "gatedSimulation");
}

/** Everything a report says about what ran, without wall times. */
function outcome(report: SimulationReport): unknown {
  return {
    seeds: report.seeds.map((s, i) => `${report.seedIndexes[i]} ${s.seed} ${s.ok} ${s.traceHash} ${s.recipe ?? ""}`),
    campaign: report.campaign,
    bugs: report.exploration?.bugRecipes,
    discoveries: report.exploration?.discoveriesByKind,
    table: report.assertionDetails,
  };
}

describe("the adaptive campaign", () => {
  it("is the default iteration control, with a documented budget", () => {
    expect(DEFAULT_ITERATION_CONTROL).toEqual({ kind: "adaptive", timelines: DEFAULT_CAMPAIGN_TIMELINES });
    const builder = new SimulationBuilder().workloadFactory(() => ({ name: "idle", run: async () => {} }));
    expect(builder.build().iteration).toBe(DEFAULT_ITERATION_CONTROL);
  });

  it("gives the same report for the same base seed and budget, and another for another base seed", async () => {
    const a = await gated(96, 7).run();
    const b = await gated(96, 7).run();
    const c = await gated(96, 8).run();
    expect(outcome(b)).toEqual(outcome(a));
    expect(a.seeds.map((s) => s.traceHash)).not.toEqual(c.seeds.map((s) => s.traceHash));
  });

  it("gives the in-thread report with two workers", async () => {
    // Realms reused (a fresh realm per timeline is adaptive-campaign.heavy.test.ts's case): the gated bug keeps no module state.
    const inThread = await gated(40, 11).run();
    const twoWorkers = await gated(40, 11).isolation("shared").run({ workers: 2 });
    expect(outcome(twoWorkers)).toEqual(outcome(inThread));
  });

  it("reports how the budget was split and why it stopped", async () => {
    const report = await gated(64, 3).run();
    const campaign = report.campaign!;
    expect(campaign.kind).toBe("adaptive");
    expect(campaign.budgetTimelines).toBe(64);
    expect(campaign.timelines).toBe(64);
    expect(campaign.arms.fresh.timelines + campaign.arms.continuation.timelines).toBe(64);
    // Every fresh timeline is a root seed of the report.
    expect(report.seeds.length).toBe(campaign.arms.fresh.timelines);
    expect(campaign.stoppedBy).toBe("budget");
    expect(campaign.stopReason).toBe(
      `spent the budget of 64 timelines (${campaign.arms.fresh.timelines} fresh root seeds, ${campaign.arms.continuation.timelines} continuations)`,
    );
    expect(report.toString()).toContain("Fresh root seeds:");
    expect((report.toJSON() as { campaign: unknown }).campaign).toEqual(campaign);
    expect(validate(REPORT_SCHEMA, JSON.parse(JSON.stringify(report)))).toEqual([]);
  });

  it("has no campaign field under untilCoverageStable or a fixed number of seeds", async () => {
    const stable = await gatedSimulation().setBaseSeed(1).untilCoverageStable(3, 20).run();
    const fixed = await gatedSimulation().setBaseSeed(1).setIterations(5).run();
    for (const report of [stable, fixed]) {
      expect(report.campaign).toBeNull();
      expect((report.toJSON() as { campaign: unknown }).campaign).toBeNull();
      expect(report.toString()).not.toContain("Fresh root seeds:");
      expect(validate(REPORT_SCHEMA, JSON.parse(JSON.stringify(report)))).toEqual([]);
    }
  });

  it("spends nearly the whole budget on fresh seeds where continuations find nothing", async () => {
    const report = await checkThenAct().setBaseSeed(2).campaignBudget(400).run();
    const arms = report.campaign!.arms;
    expect(arms.continuation.timelines).toBeLessThanOrEqual(400 * 0.05);
    expect(arms.continuation.timelines).toBe(report.campaign!.probes);
    // The fresh arm runs the plain campaign's seeds in its order: the same failures as plain seeds.
    const plain = await checkThenAct().setBaseSeed(2).setIterations(arms.fresh.timelines).run();
    expect(report.seeds.filter((s) => !s.ok && s.recipe === undefined).map((s) => s.seed)).toEqual(plain.seedsFailing);
  });

  it("continues where continuations pay, and a continuation's failure replays from its recipe", async () => {
    const report = await threeStepRace().setBaseSeed(1).campaignBudget(400).run();
    const campaign = report.campaign!;
    // About 1 random seed in 3,700 fails; a continuation of a root that got two steps in finds it.
    expect(campaign.firstFailureAtTimeline).not.toBeNull();
    expect(campaign.arms.continuation.firstFailureAtTimeline).toBe(campaign.firstFailureAtTimeline);
    const failing = report.seeds.find((s) => !s.ok && s.recipe !== undefined)!;
    expect(failing.failures[0]!.message).toContain("[exploration recipe");
    const replay = await threeStepRace().replayTimeline(failing.seed, failing.recipe!).run();
    expect(replay.failedRuns).toBe(1);
    expect(replay.seeds[0]!.traceHash).toBe(failing.traceHash);
  });

  it("refuses a budget that is not a positive whole number", () => {
    expect(() => gatedSimulation().campaignBudget(0)).toThrow(/campaignBudget\(timelines\): timelines/);
  });
});
