/**
 * `ctx.chaosWindow`: a workload awaits the chaos cutoff instead of repeating the duration as a
 * constant, and reads how much of the run budget's recovery tail is left.
 *
 * These simulations run exact clocks (`.clockFaults("none")`): they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { describe, expect, it } from "vitest";
import { Chaos, SimulationBuilder, type SimContext } from "../src/index.ts";

interface Seen {
  startMs: number;
  endedAtMs: number;
  endedBefore: boolean;
  endedAfter: boolean;
  tailAtStart: number | null;
  tailAfterCutoff: number | null;
  tailLater: number | null;
  durationMs: number | null;
}

async function observe(durationMs: number | null): Promise<{ seen: Seen; ok: boolean }> {
  const seen = {} as Seen;
  let builder = new SimulationBuilder()
    .clockFaults("none")
    .processes(1, () => ({ name: "idle", run: (ctx: SimContext) => ctx.time.sleep(60_000).catch(() => undefined) }))
    .workloadFactory(() => ({
      name: "liveness",
      async run(ctx: SimContext) {
        const w = ctx.chaosWindow;
        seen.durationMs = w.durationMs;
        seen.startMs = ctx.time.now();
        seen.endedBefore = w.ended;
        seen.tailAtStart = w.recoveryTimeLeftMs();
        if (w.durationMs === null) return;
        await w.whenEnded();
        seen.endedAtMs = ctx.time.now();
        seen.endedAfter = w.ended;
        seen.tailAfterCutoff = w.recoveryTimeLeftMs();
        await ctx.time.sleep(1_000);
        seen.tailLater = w.recoveryTimeLeftMs();
        await w.whenEnded(); // already over: resolves at once
      },
    }))
    .networkFaults("none")
    .runTimeBudget(60_000)
    .setDebugSeeds([4])
    .setIterations(1);
  if (durationMs !== null) builder = builder.chaosDuration(durationMs);
  const report = await builder.run();
  return { seen, ok: report.seeds[0]!.ok };
}

describe("ctx.chaosWindow", () => {
  it("whenEnded() resolves at the cutoff; recoveryTimeLeftMs() counts down the budget after it", async () => {
    const { seen, ok } = await observe(5_000);
    expect(ok).toBe(true);
    expect(seen.durationMs).toBe(5_000);
    expect(seen.endedBefore).toBe(false);
    expect(seen.endedAfter).toBe(true);
    expect(seen.endedAtMs - seen.startMs).toBe(5_000);
    expect(seen.tailAtStart).toBe(55_000);
    expect(seen.tailAfterCutoff).toBe(55_000);
    expect(seen.tailLater).toBeCloseTo(54_000, 3);
  });

  it("without a window: no duration, never ended, no recovery tail", async () => {
    const { seen, ok } = await observe(null);
    expect(ok).toBe(true);
    expect(seen.durationMs).toBeNull();
    expect(seen.endedBefore).toBe(false);
    expect(seen.tailAtStart).toBeNull();
  });

  it("adds no randomness: the same seed gives the same trace hash twice", async () => {
    const run = () =>
      new SimulationBuilder()
        .clockFaults("none")
        .processes(2, () => ({
          name: "p",
          run: async (ctx: SimContext) => void (await ctx.chaosWindow.whenEnded().catch(() => undefined)),
        }))
        .workloadFactory(() => ({
          name: "w",
          run: async (ctx: SimContext) => void (await ctx.chaosWindow.whenEnded(), await ctx.time.sleep(500)),
        }))
        .chaosDuration(2_000)
        .enableChaos([Chaos.network("swarm")])
        .setDebugSeeds([1, 2])
        .setIterations(2)
        .run();
    const [a, b] = [await run(), await run()];
    expect(a.seeds.every((s) => s.ok)).toBe(true);
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(a.seeds[0]!.traceHash).not.toBe(a.seeds[1]!.traceHash);
  });
});
