/**
 * Which isolation a campaign runs with (runner/isolation.ts): a fresh realm per seed by default,
 * with or without `nodeRuntime()`; the simulation's `isolation()` overrides it, the command
 * overrides both; a bad mode is refused at the call with the modes it takes. A run in this
 * thread shares its realm across seeds whatever the mode, and its report says so.
 */
import { InvalidConfiguration } from "@moonpool/core";
import { describe, expect, it } from "vitest";
import { SimulationBuilder } from "../src/index.ts";
import { resolveIsolation, sharedIsolationNote } from "../src/runner/isolation.ts";
import { runSimulationTest } from "../src/vitest.ts";

const sleeper = () => ({ name: "sleeper", run: async () => {} });

describe("seed isolation settings", () => {
  it("defaults to a fresh realm per seed, with nodeRuntime() and without", () => {
    const node = new SimulationBuilder().nodeRuntime().workloadFactory(sleeper).build();
    const plain = new SimulationBuilder().workloadFactory(sleeper).build();
    expect(resolveIsolation(node)).toEqual({ mode: "seed", chosen: "default" });
    expect(resolveIsolation(plain)).toEqual({ mode: "seed", chosen: "default" });
    expect(sharedIsolationNote(resolveIsolation(plain))).toBeNull();
    expect(sharedIsolationNote(resolveIsolation(plain, "shared"))).toContain("replays are not guaranteed");
  });

  it("takes the simulation's choice, and the command's over it", () => {
    const shared = new SimulationBuilder().nodeRuntime().isolation("shared").workloadFactory(sleeper).build();
    const seed = new SimulationBuilder().isolation("seed").workloadFactory(sleeper).build();
    expect(resolveIsolation(shared)).toEqual({ mode: "shared", chosen: "simulation" });
    expect(sharedIsolationNote(resolveIsolation(shared))).toContain("replays are not guaranteed");
    expect(resolveIsolation(seed)).toEqual({ mode: "seed", chosen: "simulation" });
    expect(resolveIsolation(shared, "seed")).toEqual({ mode: "seed", chosen: "command" });
  });

  it("refuses an unknown mode, naming the ones it takes", () => {
    expect(() => new SimulationBuilder().isolation("thread" as never)).toThrow(InvalidConfiguration);
    expect(() => new SimulationBuilder().isolation("thread" as never)).toThrow(
      'isolation(mode): unknown isolation "thread"; use "seed" (a fresh realm per seed) or "shared"',
    );
  });

  it("says an in-thread run's seeds shared this thread's realm, where module state carries over", async () => {
    let seedsInRealm = 0;
    const counted = () =>
      new SimulationBuilder()
        .setDebugSeeds([5, 5])
        .setIterations(2)
        .workloadFactory(() => ({
          name: "counter",
          run: async (ctx) => {
            seedsInRealm += 1;
            ctx.trace.info("count", { seedsInRealm });
            await ctx.time.sleep(1);
          },
        }));
    const report = await counted().run();
    expect(report.isolation).toEqual({ mode: "shared", realm: "in-thread" });
    expect(report.toString()).toContain("Isolation: shared (in-thread): every seed ran in this thread's realm");
    // The same seed twice in one realm: the counter it left makes the second run another timeline.
    expect(report.seeds.map((s) => s.seed)).toEqual([5, 5]);
    expect(report.seeds[0]!.traceHash).not.toBe(report.seeds[1]!.traceHash);
    const tested = await runSimulationTest(counted);
    expect(tested.isolation).toEqual({ mode: "shared", realm: "in-thread" });
  });
});
