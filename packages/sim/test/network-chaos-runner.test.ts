/**
 * The chaos window through the runner: the cutoff (recovery mode), custom fault injectors, and
 * the builder's validation of chaos settings.
 *
 * These simulations run exact clocks (`.clockFaults("none")`): they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { describe, expect, it } from "vitest";
import { InvalidConfiguration, isAbortError } from "@moonpool/core";
import {
  Chaos,
  CHAOS_ENDED_ASSERTION,
  NETWORK_BASELINE,
  NETWORK_FAULT_KINDS,
  SIM_FAULT_EVENT_NAME,
  SimulationBuilder,
  TraceCursor,
  type FaultContext,
  type FaultInjector,
  type TraceEvent,
} from "../src/index.ts";
import { EchoClient, EchoServer } from "./fixtures/chaos-echo.ts";

const K = NETWORK_FAULT_KINDS;

/** Collects every sim_fault, runner and echo fact of each seed. */
function recorder() {
  const seeds: { faults: TraceEvent[]; chaosEnded: TraceEvent[]; echoes: TraceEvent[] }[] = [];
  const cursor = new TraceCursor();
  return {
    seeds,
    before: () => {
      cursor.reset();
      seeds.push({ faults: [], chaosEnded: [], echoes: [] });
    },
    observe: (q: { since(name: string, c: TraceCursor): readonly TraceEvent[] }) => {
      const s = seeds[seeds.length - 1]!;
      s.faults.push(...q.since(SIM_FAULT_EVENT_NAME, cursor));
      s.chaosEnded.push(...q.since("chaos_ended", cursor));
      for (const name of ["echo_ok", "echo_failed", "echo_corrupt"]) s.echoes.push(...q.since(name, cursor));
    },
  };
}

describe("the chaos cutoff (recovery mode)", () => {
  it("after the cutoff no new configuration-driven fault, partitions healed both ways, and the echo reconverges", async () => {
    const rec = recorder();
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .enableChaos([Chaos.network("swarm"), Chaos.buggifyKnobs()])
      .chaosDuration(3_000)
      .processes(1, () => new EchoServer())
      .workloadFactory(() => new EchoClient({ rounds: 80, pauseMs: 100, timeoutMs: 5_000 }))
      .invariantFn("recorder", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setBaseSeed(21)
      .setIterations(30)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    let faultsBefore = 0;
    let recoveryHeals = 0;
    for (const seed of rec.seeds) {
      expect(seed.chaosEnded).toHaveLength(1);
      const cutoffMs = seed.chaosEnded[0]!.timeMs;
      expect(cutoffMs).toBe(3_000); // no setup phase: the run starts at 0
      for (const f of seed.faults) {
        if (f.timeMs < cutoffMs) {
          faultsBefore++;
          continue;
        }
        // At the cutoff instant only the heals of partitions in force; after it, nothing at all.
        expect(f.timeMs, f.format()).toBe(cutoffMs);
        expect([K.partitionHealed], f.format()).toContain(f.str("kind"));
        expect(f.str("cause")).toBe("recovery");
        recoveryHeals++;
      }
      // Every partition created and not yet healed before the cutoff is healed at it, both directions.
      const open = new Set<string>();
      for (const f of seed.faults) {
        const key = `${f.str("from")}->${f.str("to")}`;
        if (f.str("kind") === K.partitionCreated) open.add(key);
        if (f.str("kind") === K.partitionHealed) open.delete(key);
      }
      expect([...open]).toEqual([]);
      // Reconvergence: every round that starts a little after the cutoff succeeds.
      const late = seed.echoes.filter((e) => e.num("startMs")! >= cutoffMs + 100);
      expect(late.length).toBeGreaterThan(10);
      for (const e of late) expect(e.name, e.format()).toBe("echo_ok");
    }
    expect(faultsBefore).toBeGreaterThan(100);
    expect(recoveryHeals).toBeGreaterThan(0);
    expect(report.assertionDetails.find((d) => d.message === CHAOS_ENDED_ASSERTION)?.status).toBe("PASS");
  });

  it("without chaosDuration the configuration's faults last the whole run", async () => {
    const rec = recorder();
    await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults({ ...NETWORK_BASELINE, clogProbability: 0.05, clogDurationUs: [1_000, 2_000] })
      .processes(1, () => new EchoServer())
      .workloadFactory(() => new EchoClient({ rounds: 60, pauseMs: 100 }))
      .invariantFn("recorder", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setBaseSeed(2)
      .setIterations(3)
      .run();
    for (const seed of rec.seeds) {
      expect(seed.chaosEnded).toHaveLength(0);
      expect(seed.faults.some((f) => f.str("kind") === K.clog && f.timeMs > 4_000)).toBe(true);
    }
  });
});

describe("fault injectors", () => {
  class Partitioner implements FaultInjector {
    readonly name = "partitioner";
    readonly log: string[] = [];
    async inject(ctx: FaultContext): Promise<void> {
      const [server] = ctx.topology.ipsInGroup("echo");
      const client = ctx.topology.workloadIps()[0]!;
      this.log.push(`start@${ctx.time.now()}`);
      try {
        await ctx.time.sleep(1_000);
        ctx.partitionBetween(client, server!, 1_500);
        this.log.push(
          `partitioned@${ctx.time.now()}:${ctx.isPartitioned(client, server!)}:${ctx.isPartitioned(server!, client)}`,
        );
        await ctx.time.sleep(60_000); // outlives the window: the cutoff stops it
      } catch (error) {
        this.log.push(`${isAbortError(error) ? "aborted" : "error"}@${ctx.time.now()}:${ctx.chaosShutdown.aborted}`);
        ctx.partition(client, server!, 1_000); // too late: ignored
        throw error;
      }
    }
  }

  it("a fresh injector per seed runs only in the window; its partitions cut traffic; the cutoff stops it", async () => {
    const made: Partitioner[] = [];
    const rec = recorder();
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .chaosDuration(5_000)
      .faultFactory(() => {
        const p = new Partitioner();
        made.push(p);
        return p;
      })
      .processes(1, () => new EchoServer())
      .workloadFactory(() => new EchoClient({ rounds: 40, pauseMs: 150, timeoutMs: 400 }))
      .invariantFn("recorder", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setBaseSeed(4)
      .setIterations(3)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(made).toHaveLength(3);
    expect(new Set(made).size).toBe(3);
    for (const [i, p] of made.entries()) {
      expect(p.log).toEqual(["start@0", "partitioned@1000:true:true", "aborted@5000:true"]);
      const seed = rec.seeds[i]!;
      expect(seed.faults.map((f) => [f.str("kind"), f.timeMs, f.str("cause")])).toEqual([
        [K.partitionCreated, 1_000, "manual"],
        [K.partitionCreated, 1_000, "manual"],
        [K.partitionHealed, 2_500, "expired"],
        [K.partitionHealed, 2_500, "expired"],
      ]);
      // Rounds during the partition fail, rounds after it succeed.
      for (const e of seed.echoes) {
        const start = e.num("startMs")!;
        if (start >= 1_000 && start + 400 < 2_500) expect(e.name, e.format()).toBe("echo_failed");
        if (start >= 2_500) expect(e.name, e.format()).toBe("echo_ok");
      }
      expect(report.seeds[i]!.chaos.faultInjector).toBe("partitioner");
    }
  });

  it("an injector's rejection fails the seed with its stack", async () => {
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .chaosDuration(1_000)
      .faultFactory(() => ({
        name: "faulty",
        async inject(ctx: FaultContext) {
          await ctx.time.sleep(10);
          explodeInsideTheInjector();
        },
      }))
      .processes(1, () => new EchoServer())
      .workloadFactory(() => new EchoClient({ rounds: 3 }))
      .setBaseSeed(1)
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(1);
    const [failure] = report.seeds[0]!.failures;
    expect(failure!.kind).toBe("faultInjector");
    expect(failure!.message).toContain("fault injector 'faulty' rejected: Error: injector exploded");
    expect(failure!.stack).toContain("explodeInsideTheInjector");
    expect(failure!.actor).toBe("faulty@fault-injector");
  });

  it("rejects bad partition arguments and is stopped when the run ends before the cutoff", async () => {
    const seen: string[] = [];
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .chaosDuration(60_000)
      .faultFactory(() => ({
        name: "checker",
        async inject(ctx: FaultContext) {
          for (const bad of [
            () => ctx.partition("nonsense", "10.0.1.1"),
            () => ctx.partition("10.0.1.1", "10.0.0.1", -5),
          ]) {
            try {
              bad();
            } catch (error) {
              seen.push((error as Error).message);
            }
          }
          await ctx.time.sleep(1_000_000);
          seen.push("never");
        },
      }))
      .processes(1, () => new EchoServer())
      .workloadFactory(() => new EchoClient({ rounds: 2 }))
      .setBaseSeed(1)
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(/not an IPv4 address/);
    expect(seen[1]).toMatch(/durationMs must be/);
  });
});

function explodeInsideTheInjector(): never {
  throw new Error("injector exploded");
}

describe("builder validation of chaos settings", () => {
  const base = () =>
    new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () => new EchoServer())
      .workloadFactory(() => new EchoClient({ rounds: 1 }));
  const error = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidConfiguration);
      return (e as Error).message;
    }
    throw new Error("expected an InvalidConfiguration");
  };

  it("faultFactory without chaosDuration says to add chaosDuration", () => {
    const message = error(() =>
      base()
        .faultFactory(() => ({ name: "x", inject: async () => {} }))
        .build(),
    );
    expect(message).toContain("add .chaosDuration(ms)");
  });

  it("rejects entries that are not Chaos descriptors, unknown modes, knobs without a surface, and bad durations", () => {
    expect(error(() => base().enableChaos(["network"] as never))).toMatch(/Chaos.network\("random" \| "swarm"\)/);
    expect(error(() => base().enableChaos({} as never))).toMatch(/must be an array/);
    expect(error(() => Chaos.network("chaotic" as never))).toMatch(/"random".*"swarm"/);
    expect(error(() => base().enableChaos([Chaos.buggifyKnobs()]).build())).toMatch(/add Chaos.network/);
    for (const bad of [0, -1, Number.NaN, Infinity])
      expect(error(() => base().chaosDuration(bad))).toMatch(/positive number/);
    expect(error(() => base().faultFactory("x" as never))).toMatch(/function/);
  });

  it("networkFaults: 'none' or a config contradicts Chaos.network; invalid configs list what to fix", () => {
    expect(
      error(() =>
        base()
          .networkFaults("none")
          .enableChaos([Chaos.network("random")])
          .build(),
      ),
    ).toMatch(/contradicts Chaos.network\("random"\)/);
    const message = error(() =>
      base().networkFaults({
        ...NETWORK_BASELINE,
        bitFlipProbability: 2,
        clogDurationUs: [5, 1],
        connectFailureMode: "often" as never,
      }),
    );
    expect(message).toContain("bitFlipProbability must be a probability");
    expect(message).toContain("clogDurationUs must be [minUs, maxUs]");
    expect(message).toContain("connectFailureMode must be one of");
    expect(error(() => base().networkFaults(42 as never))).toMatch(/"baseline", "none" or a NetworkConfig/);
  });

  it("later enableChaos entries override earlier ones; calls accumulate", () => {
    const config = base()
      .enableChaos([Chaos.network("random")])
      .enableChaos([Chaos.buggifyKnobs(), Chaos.network("swarm")])
      .build();
    expect(config.chaos).toEqual({ network: "swarm", buggifyKnobs: true });
  });
});
