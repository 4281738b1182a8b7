/**
 * The coverage stop rule: a minimum budget of seeds before coverage may stop a campaign,
 * `assertSometimesEach` buckets as coverage (a simulation with only those saturates), numeric
 * sometimes sites as sites to reach, and one line saying why the campaign stopped. The CLI's
 * default plan is the adaptive budget (explore/campaign-search.ts); `--quick` is the plain rule.
 */
import { describe, expect, it } from "vitest";
import { assertSometimes, assertSometimesEach, assertSometimesGreaterThan } from "@moonpool/core";
import { SimulationBuilder, type SimContext } from "../src/index.ts";
import { DEFAULT_CAMPAIGN_TIMELINES } from "../src/runner/config.ts";
import { describePlan, resolveSeedPlan } from "../src/cli/seed-plan.ts";
import { parseUntilStable } from "../src/cli/option-values.ts";
import { UsageError } from "../src/cli/errors.ts";

function simulation(body: (ctx: SimContext) => void): SimulationBuilder {
  return new SimulationBuilder()
    .workloadFactory(() => ({
      name: "w",
      async run(ctx: SimContext) {
        await ctx.time.sleep(1);
        body(ctx);
      },
    }))
    .networkFaults("none")
    .setBaseSeed(11);
}

describe("CoverageStopRule", () => {
  it("stops on a plateau; with minSeeds only once the minimum is spent; says why in one line", async () => {
    const quick = await simulation(() => assertSometimes(true, "always reached"))
      .untilCoverageStable(5, 400)
      .run();
    expect(quick.iterations).toBe(6);
    expect(quick.saturation!.stopReason).toMatch(
      /^stopped after 6 seeds: coverage stable for 5 seeds \(1\/1 sometimes reached/,
    );

    const spent = await simulation(() => assertSometimes(true, "always reached"))
      .untilCoverageStable(5, 400, { minSeeds: 120 })
      .run();
    expect(spent.iterations).toBe(120);
    expect(spent.saturation!.saturated).toBe(true);
    expect(spent.saturation!.stopReason).toMatch(/and the minimum of 120 seeds spent$/);
    expect(spent.toString()).toMatch(/Stop rule: stopped after 120 seeds/);
  });

  it("a simulation whose only signals are assertSometimesEach saturates once no new bucket appears", async () => {
    const report = await simulation((ctx) => assertSometimesEach("bucket", { b: ctx.random.randomRange(0, 4) }))
      .untilCoverageStable(10, 500)
      .run();
    expect(report.saturation!.saturated).toBe(true);
    expect(report.iterations).toBeLessThan(60);
    expect(report.saturation!.eachBuckets).toBe(4);
    expect(report.convergenceTimeout).toBe(false);
  });

  it("new buckets keep it going: a growing bucket set runs to the cap and says coverage is still growing", async () => {
    let n = 0;
    const report = await simulation(() => assertSometimesEach("growing", { b: n++ }))
      .untilCoverageStable(3, 25)
      .run();
    expect(report.iterations).toBe(25);
    expect(report.convergenceTimeout).toBe(true);
    expect(report.saturation!.stopReason).toMatch(/^stopped at the cap of 25 seeds: coverage still growing/);
  });

  it("a numeric sometimes site counts once reached; its watermark moving is not new coverage", async () => {
    let calls = 0;
    const report = await simulation((ctx) =>
      assertSometimesGreaterThan(ctx.random.randomRange(0, 1000) + calls++, 10, "big enough"),
    )
      .untilCoverageStable(5, 300)
      .run();
    expect(report.saturation!.saturated).toBe(true);
    expect(report.saturation!.sometimesTotal).toBe(1);
    expect(report.iterations).toBeLessThan(40);
  });

  it("an unreached numeric sometimes site keeps the campaign going to the cap, naming the gap", async () => {
    const report = await simulation(() => assertSometimesGreaterThan(1, 10, "never big enough"))
      .untilCoverageStable(3, 20)
      .run();
    expect(report.iterations).toBe(20);
    expect(report.saturation!.stopReason).toMatch(/still misses 1 of 1 sometimes assertions/);
  });

  it("rejects a minimum above the cap with a typed error", () => {
    expect(() => new SimulationBuilder().untilCoverageStable(3, 10, { minSeeds: 11 })).toThrow(
      /minSeeds must be a whole number from 0 to maxSeeds \(10\)/,
    );
  });
});

describe("the moonpool run default plan", () => {
  const file = { iterations: null, untilStable: null } as never;
  const sim = (b: SimulationBuilder) => b.build();

  it("spends the adaptive budget by default; --budget sets it; --quick keeps the plateau rule alone", () => {
    const config = sim(simulation(() => undefined));
    const { plan } = resolveSeedPlan({}, config, file);
    expect(plan).toEqual({ kind: "adaptive", baseSeed: 11, debugSeeds: [], timelines: DEFAULT_CAMPAIGN_TIMELINES });
    expect(describePlan(plan)).toMatch(/^a budget of 1000 timelines split between fresh root seeds and continuations/);
    expect(resolveSeedPlan({ budget: 300 }, config, file).plan).toMatchObject({ kind: "adaptive", timelines: 300 });
    expect(() => resolveSeedPlan({ budget: 300, iterations: 5 }, config, file)).toThrow(/--iterations and --budget/);
    const quick = resolveSeedPlan({ quick: true }, config, file).plan;
    expect(quick).toEqual({ kind: "untilStable", baseSeed: 11, debugSeeds: [], quietSeeds: 10, maxSeeds: 1000 });
    // A simulation's own budget is kept; --quick then runs the plain stop rule.
    const own = sim(simulation(() => undefined).campaignBudget(50));
    expect(resolveSeedPlan({}, own, file).plan).toMatchObject({ kind: "adaptive", timelines: 50 });
    expect(resolveSeedPlan({ quick: true }, own, file).plan).toMatchObject({ kind: "untilStable", quietSeeds: 10 });
  });

  it("a simulation's own untilCoverageStable is kept as written", () => {
    const config = sim(simulation(() => undefined).untilCoverageStable(4, 40));
    expect(resolveSeedPlan({}, config, file).plan).toEqual({
      kind: "untilStable",
      baseSeed: 11,
      debugSeeds: [],
      quietSeeds: 4,
      maxSeeds: 40,
    });
  });

  it("--until-stable takes an optional minimum; --quick with another seed flag is a usage error", () => {
    expect(parseUntilStable("10,1000,300")).toEqual({ quietSeeds: 10, maxSeeds: 1000, minSeeds: 300 });
    expect(parseUntilStable("10,1000")).toEqual({ quietSeeds: 10, maxSeeds: 1000 });
    expect(() => parseUntilStable("10,100,300")).toThrow(UsageError);
    const config = sim(simulation(() => undefined));
    expect(() => resolveSeedPlan({ quick: true, iterations: 5 }, config, file)).toThrow(/--iterations and --quick/);
  });
});
