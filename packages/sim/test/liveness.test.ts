/**
 * Liveness properties (`builder.liveness(...)`): judged over the recovery tail, reported as a
 * "liveness" failure with the time waited, apart from safety violations. On and off, the run
 * phase ending before the deadline, a throwing predicate and configuration mistakes
 * (examples/rejoin shows the reports; cli/liveness-report.test.ts the command's).
 */
import { describe, expect, it } from "vitest";
import {
  assertAlways,
  InvalidConfiguration,
  LIVENESS_CONVERGED_EVENT,
  SimulationBuilder,
  type LivenessProperty,
  type SimContext,
} from "../src/index.ts";
import { Campaign } from "../src/runner/campaign.ts";
import type { TraceEvent } from "../src/world/trace-log.ts";

const CHAOS_MS = 1_000;

/** A node that publishes `healed` at `healAtMs` (never when null), and a workload lasting `runMs`. */
function simulation(healAtMs: number | null, runMs: number, properties: readonly LivenessProperty[]) {
  // Exact clocks: the tests compare waits and failure times to the millisecond.
  let builder = new SimulationBuilder()
    .clockFaults("none")
    .networkFaults("none")
    .processes(1, () => ({
      name: "node",
      async run(ctx: SimContext) {
        if (healAtMs === null) return;
        await ctx.time.sleep(healAtMs);
        ctx.trace.info("healed", {});
      },
    }))
    .workloadFactory(() => ({ name: "tail", run: (ctx: SimContext) => ctx.time.sleep(runMs) }))
    .chaosDuration(CHAOS_MS);
  for (const p of properties) builder = builder.liveness(p);
  return builder;
}

const healed = (withinMs: number): LivenessProperty => ({
  name: "the node healed",
  withinMs,
  converged: (query) => query.count("healed") > 0,
});

async function runOne(builder: SimulationBuilder, seed = 1) {
  let events: readonly TraceEvent[] = [];
  const { result } = await new Campaign(builder.build()).runSingleSeed(seed, {
    explore: false,
    onTrace: (all) => (events = all),
  });
  return { result, events };
}

describe("liveness properties", () => {
  it("on, converging: the seed passes and a liveness_converged event says how long it took", async () => {
    const { result, events } = await runOne(simulation(1_300, 3_000, [healed(1_000)]));
    expect(result.failures).toEqual([]);
    const converged = events.filter((e) => e.name === LIVENESS_CONVERGED_EVENT);
    expect(converged.map((e) => e.fields)).toEqual([{ property: "the node healed", waitedMs: 300 }]);
    expect(converged[0]!.timeMs).toBe(1_300);
  });

  it("a state reached inside the chaos window counts from the window's end", async () => {
    const { result, events } = await runOne(simulation(200, 3_000, [healed(1_000)]));
    expect(result.failures).toEqual([]);
    const converged = events.find((e) => e.name === LIVENESS_CONVERGED_EVENT)!;
    expect(converged.timeMs).toBe(CHAOS_MS);
    expect(converged.fields.waitedMs).toBe(0);
  });

  it("on, never converging: a liveness failure at the deadline with the time it waited", async () => {
    const { result } = await runOne(simulation(null, 3_000, [healed(1_000)]));
    expect(result.ok).toBe(false);
    expect(result.failures).toEqual([
      {
        kind: "liveness",
        message: "liveness 'the node healed' did not converge: waited 1000 ms after the chaos window ended at 1000 ms",
        timeMs: 2_000,
        property: "the node healed",
        waitedMs: 1_000,
      },
    ]);
  });

  it("a run phase that ends before the deadline judges the property on the time it had", async () => {
    const { result } = await runOne(simulation(null, 1_400, [healed(1_000)]));
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toMatchObject({ kind: "liveness", waitedMs: 400, timeMs: 1_400 });
    expect(result.failures[0]!.message).toContain("the run phase ended 400 ms after the chaos window");
    expect(result.failures[0]!.message).toContain("keep a workload running until the chaos window's end + 1000 ms");
    const early = await runOne(simulation(null, 500, [healed(1_000)]));
    expect(early.result.failures[0]!.message).toContain("the run phase ended before the chaos window did");
  });

  it("off: no property, no liveness event and no liveness failure", async () => {
    const { result, events } = await runOne(simulation(null, 3_000, []));
    expect(result.failures).toEqual([]);
    expect(events.some((e) => e.name === LIVENESS_CONVERGED_EVENT)).toBe(false);
  });

  it("a safety violation stays an assertion failure, and no liveness verdict is added to a failing run", async () => {
    const builder = simulation(null, 3_000, [healed(5_000)]).invariantFn("healed at once", (query) =>
      assertAlways(query.count("healed") > 0, "a safety property"),
    );
    const { result } = await runOne(builder);
    expect(result.failures.map((f) => f.kind)).toEqual(["assertion"]);
    expect("waitedMs" in result.failures[0]!).toBe(false);
  });

  it("a throwing predicate fails the seed once, as an invariant would", async () => {
    const throwing: LivenessProperty = {
      name: "throws",
      withinMs: 500,
      converged: () => {
        throw new Error("boom");
      },
    };
    const { result } = await runOne(simulation(null, 3_000, [throwing]));
    expect(result.failures.map((f) => [f.kind, f.message])).toEqual([
      ["invariant", "liveness 'throws': converged() threw: boom"],
    ]);
  });

  it("configuration mistakes say what to change", () => {
    const noWindow = new SimulationBuilder()
      .processes(1, () => ({ name: "n", run: async () => undefined }))
      .workloadFactory(() => ({ name: "w", run: async () => undefined }))
      .liveness(healed(100));
    expect(() => noWindow.build()).toThrow(InvalidConfiguration);
    expect(() => noWindow.build()).toThrow("liveness(...) needs a chaos window: add .chaosDuration(ms)");
    const b = new SimulationBuilder();
    expect(() => b.liveness({ ...healed(100), name: "" })).toThrow("name must be a non-empty string");
    expect(() => b.liveness({ ...healed(0) })).toThrow("withinMs of 'the node healed' must be a positive number");
    expect(() => b.liveness({ name: "x", withinMs: 1 } as unknown as LivenessProperty)).toThrow(
      "converged of 'x' must be a function",
    );
  });
});
