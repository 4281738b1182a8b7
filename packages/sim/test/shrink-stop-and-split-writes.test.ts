/**
 * Two overrides that let the shrinker cut a run without moving what came before: `stop=failure`
 * ends the run at its first failure, and a skipped partial write (`faults.skip`) still makes the
 * draws of its prefix's delivery and of the reader that would have taken it, so the rest of the
 * run keeps its draws.
 */
import { describe, expect, it } from "vitest";
import { assertAlways, SimulationBuilder, type SimContext, type Workload } from "../src/index.ts";
import { formatOverrides, OverridesParseError, parseOverrides } from "../src/runner/shrink/overrides.ts";
import { isInjectedFault } from "../src/runner/shrink/measure.ts";
import { SIM_FAULT_SKIPPED_EVENT_NAME } from "../src/world/trace-log.ts";
import { chaoticPaxos as paxos, runWithOverrides as run } from "./fixtures/override-runs.ts";

/** Twenty steps of random length; with `failAt`, that step violates a property. The check always fails. */
class Steps implements Workload {
  readonly name = "steps";
  constructor(private readonly failAt: number | null) {}

  async run(ctx: SimContext): Promise<void> {
    for (let i = 0; i < 20; i++) {
      await ctx.time.sleep(ctx.random.randomRange(10, 50));
      ctx.trace.info("step", { i });
      assertAlways(i !== this.failAt, "the failing step never comes");
    }
  }

  async check(): Promise<void> {
    assertAlways(this.failAt === null, "the run ended without a failing step");
  }
}

const steps = (failAt: number | null) =>
  new SimulationBuilder()
    .workloadFactory(() => new Steps(failAt))
    .networkFaults("none")
    .build();

describe("stop=failure", () => {
  it("formats what it parses, and refuses another value with a message that says what to change", () => {
    expect(formatOverrides(parseOverrides("stop=failure,window=750"))).toBe("window=750,stop=failure");
    expect(parseOverrides("").stopAtFailure).toBe(false);
    expect(() => parseOverrides("stop=now")).toThrow(OverridesParseError);
    expect(() => parseOverrides("stop=now")).toThrow("the only value is failure");
  });

  it("ends the run at its first failure (no later step, no check); without it the run goes on", async () => {
    const config = steps(5);
    const base = await run(config, 3);
    expect(base.result.failures.map((f) => f.property)).toEqual([
      "the failing step never comes",
      "the run ended without a failing step",
    ]);
    expect(base.events.filter((e) => e.name === "step")).toHaveLength(20);
    const stopped = await run(config, 3, "stop=failure");
    expect(stopped.result.failures.map((f) => f.property)).toEqual(["the failing step never comes"]);
    expect(stopped.events.filter((e) => e.name === "step").map((e) => e.num("i"))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(stopped.result.eventsProcessed).toBeLessThan(base.result.eventsProcessed);
    expect(stopped.result.simulatedTimeMs).toBeLessThan(base.result.simulatedTimeMs);
    // Up to the failure it is the same run.
    const failedAt = (r: typeof base) => r.events.find((e) => e.name === "seed_failure")!.seq;
    expect(failedAt(stopped)).toBe(failedAt(base));
    expect(stopped.result.failures[0]!.timeMs).toBe(base.result.failures[0]!.timeMs);
  });

  it("changes nothing in a run that does not fail (same trace hash)", async () => {
    const config = steps(null);
    const base = await run(config, 3);
    expect(base.result.failures).toEqual([]);
    expect((await run(config, 3, "stop=failure")).result.traceHash).toBe(base.result.traceHash);
  });

  it("is deterministic and replayable: the same hash twice and through replayTimeline; another seed another", async () => {
    const config = steps(5);
    const a = await run(config, 3, "stop=failure");
    expect((await run(config, 3, "stop=failure")).result.traceHash).toBe(a.result.traceHash);
    expect((await run(config, 4, "stop=failure")).result.traceHash).not.toBe(a.result.traceHash);
    const builder = new SimulationBuilder().workloadFactory(() => new Steps(5)).networkFaults("none");
    const replay = await builder.replayTimeline(3, "", "stop=failure").run();
    expect(replay.seeds[0]!.traceHash).toBe(a.result.traceHash);
    expect(replay.seeds[0]!.failures.map((f) => f.property)).toEqual(["the failing step never comes"]);
  });
});

describe("a skipped partial write", () => {
  it("keeps the later draws in place: the same sim draws and every later fault at the same time", async () => {
    const config = paxos();
    let tried = 0;
    let aligned = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const base = await run(config, seed);
      const faults = base.events.filter(isInjectedFault);
      const writes = faults.flatMap((e, n) => (e.str("kind") === "partial_write" ? [n] : [])).slice(0, 4);
      for (const n of writes) {
        const skipped = await run(config, seed, `faults.skip=${n}`);
        const marks = skipped.events.filter((e) => e.name === SIM_FAULT_SKIPPED_EVENT_NAME);
        expect(marks.map((e) => e.fields)).toEqual([{ kind: "partial_write", ordinal: n }]);
        expect(skipped.result.traceHash).not.toBe(base.result.traceHash);
        tried++;
        const later = (events: typeof faults) => events.map((e) => `${e.timeMs} ${e.str("kind")}`);
        if (
          skipped.result.simDraws === base.result.simDraws &&
          JSON.stringify(later(skipped.events.filter(isInjectedFault))) ===
            JSON.stringify(later(faults.filter((_, i) => i !== n)))
        )
          aligned++;
      }
    }
    // A reader that does more with the prefix than read again (a whole message in it) still
    // moves later draws; many skips keep them all (about half here).
    expect(tried).toBeGreaterThanOrEqual(8);
    expect(aligned).toBeGreaterThanOrEqual(4);
    expect(aligned * 4).toBeGreaterThanOrEqual(tried);
  });

  it("is deterministic: the same skipped writes give the same trace hash twice; another seed another", async () => {
    const config = paxos();
    let seed = 0;
    let writes: number[] = [];
    while (writes.length < 2 && seed < 12) {
      const base = await run(config, ++seed);
      writes = base.events.filter(isInjectedFault).flatMap((e, n) => (e.str("kind") === "partial_write" ? [n] : []));
    }
    expect(writes.length).toBeGreaterThanOrEqual(2);
    const text = `faults.skip=${writes[0]}+${writes[1]}`;
    const a = await run(config, seed, text);
    const b = await run(config, seed, text);
    expect(a.events.filter((e) => e.name === SIM_FAULT_SKIPPED_EVENT_NAME)).toHaveLength(2);
    expect(b.result.traceHash).toBe(a.result.traceHash);
    expect(b.result.simDraws).toBe(a.result.simDraws);
    expect((await run(config, seed + 1, text)).result.traceHash).not.toBe(a.result.traceHash);
    expect((await run(config, seed, `faults.skip=${writes[0]}`)).result.traceHash).not.toBe(a.result.traceHash);
  });
});
