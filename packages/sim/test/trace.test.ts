/**
 * Exact clocks (`.clockFaults("none")`) in these simulations: they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { describe, expect, it } from "vitest";
import {
  SIM_FAULT_EVENT_NAME,
  SimulationBuilder,
  TraceCursor,
  type Invariant,
  type SimContext,
  type TraceQuery,
  type Workload,
} from "../src/index.ts";
import { World } from "../src/world/world.ts";

const workload = (run: (ctx: SimContext) => Promise<void>): Workload => ({ name: "w", run });

describe("trace timeline and invariants", () => {
  it("captures info and above by default, debug only with traceLevel('debug')", async () => {
    const run = async (level?: "debug") => {
      const names: string[] = [];
      const cursor = new TraceCursor();
      let b = new SimulationBuilder()
        .clockFaults("none")
        .workloadFactory(() =>
          workload(async (ctx) => {
            ctx.trace.debug("detail", { n: 1 });
            ctx.trace.info("fact", { n: 2 });
            ctx.trace.warn("warning");
            await ctx.time.sleep(1);
          }),
        )
        .invariantFn("collect", (q) => {
          for (const name of ["detail", "fact", "warning"])
            for (const e of q.since(name, cursor)) names.push(`${e.level}:${e.name}`);
        })
        .setDebugSeeds([1])
        .setIterations(1);
      if (level !== undefined) b = b.traceLevel(level);
      await b.run();
      return names.sort();
    };
    expect(await run()).toEqual(["info:fact", "warn:warning"]);
    expect(await run("debug")).toEqual(["debug:detail", "info:fact", "warn:warning"]);
  });

  it("runs invariants after every step with a cursor, reset before every seed, stamped with time and actor", async () => {
    class Counter implements Invariant {
      readonly name = "counter";
      cursor = new TraceCursor();
      seen: { seq: number; timeMs: number; source: string; n: number }[] = [];
      resets = 0;
      observe(q: TraceQuery): void {
        for (const e of q.since("tick", this.cursor))
          this.seen.push({ seq: e.seq, timeMs: e.timeMs, source: e.source, n: e.num("n")! });
      }
      reset(): void {
        this.resets++;
        this.cursor.reset();
        this.seen = [];
      }
    }
    const inv = new Counter();
    let perSeed: number[] = [];
    await new SimulationBuilder()
      .clockFaults("none")
      .workloadFactory(() =>
        workload(async (ctx) => {
          for (let n = 0; n < 3; n++) {
            await ctx.time.sleep(2);
            ctx.trace.info("tick", { n });
          }
        }),
      )
      .invariant(inv)
      .beforeIteration(() => perSeed.push(inv.seen.length))
      .setDebugSeeds([1, 2])
      .setIterations(2)
      .run();
    expect(inv.resets).toBe(2);
    expect(perSeed).toEqual([0, 3]);
    expect(inv.seen.map((e) => [e.timeMs, e.source, e.n])).toEqual([
      [2, "w@10.0.0.1", 0],
      [4, "w@10.0.0.1", 1],
      [6, "w@10.0.0.1", 2],
    ]);
    perSeed = [];
  });

  it("records built-in faults as sim_fault events with source 'sim' and a kind", () => {
    const world = new World({ seed: 1 });
    world.recordFault("partition_created", { from: "10.0.1.1", to: "10.0.1.2" });
    const cursor = new TraceCursor();
    const events = world.trace.since(SIM_FAULT_EVENT_NAME, cursor);
    expect(events).toHaveLength(1);
    expect(events[0]!.source).toBe("sim");
    expect(events[0]!.str("kind")).toBe("partition_created");
    expect(events[0]!.str("from")).toBe("10.0.1.1");
    expect(world.trace.since(SIM_FAULT_EVENT_NAME, cursor)).toHaveLength(0);
    expect(() => world.emit("x", "info", "", {})).toThrow(/non-empty constant name/);
  });
});
