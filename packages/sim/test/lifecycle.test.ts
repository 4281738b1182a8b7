/**
 * Exact clocks (`.clockFaults("none")`) in these simulations: they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { describe, expect, it } from "vitest";
import {
  InvalidConfiguration,
  SimulationBuilder,
  WorkloadCount,
  type Process,
  type SimContext,
  type Workload,
} from "../src/index.ts";

const workload = (name: string, run: (ctx: SimContext) => Promise<void>, extra: Partial<Workload> = {}): Workload => ({
  name,
  run,
  ...extra,
});
const proc = (name: string, run: (ctx: SimContext) => Promise<void>): Process => ({ name, run });

function one(w: () => Workload, configure: (b: SimulationBuilder) => SimulationBuilder = (b) => b) {
  return configure(
    new SimulationBuilder().clockFaults("none").workloadFactory(w).setDebugSeeds([42]).setIterations(1),
  ).run();
}

describe("seed lifecycle", () => {
  it("runs setup of every workload before any run (barrier), then check after the run", async () => {
    const order: string[] = [];
    const make = (i: number) =>
      workload(
        `w${i}`,
        async (ctx) => {
          order.push(`run${i}`);
          await ctx.time.sleep(5);
        },
        {
          setup: async (ctx) => {
            await ctx.time.sleep(i === 0 ? 10 : 1);
            order.push(`setup${i}`);
          },
          check: async () => {
            order.push(`check${i}`);
          },
        },
      );
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .workloads(WorkloadCount.fixed(2), make)
      .setDebugSeeds([1])
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(0);
    expect(order.slice(0, 2).sort()).toEqual(["setup0", "setup1"]);
    expect(order.slice(2, 4).sort()).toEqual(["run0", "run1"]);
    expect(order.slice(4).sort()).toEqual(["check0", "check1"]);
  });

  it("the first finished workload aborts everyone's shutdown signal", async () => {
    let sawShutdownAtMs = -1;
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .workloads(WorkloadCount.fixed(2), (i) =>
        workload(`w${i}`, async (ctx) => {
          if (i === 0) {
            await ctx.time.sleep(100);
            return;
          }
          while (!ctx.shutdown.aborted) await ctx.time.sleep(10);
          sawShutdownAtMs = ctx.time.now();
        }),
      )
      .setDebugSeeds([3])
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(0);
    expect(sawShutdownAtMs).toBeGreaterThanOrEqual(100);
    expect(sawShutdownAtMs).toBeLessThanOrEqual(110);
  });

  it("a crashed process runs no finally block and never resumes", async () => {
    let finallyRan = false;
    let resumed = false;
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () =>
        proc("sleeper", async (ctx) => {
          try {
            await ctx.time.sleep(1_000_000);
            resumed = true;
          } finally {
            finallyRan = true;
          }
        }),
      )
      .workloadFactory(() => workload("short", (ctx) => ctx.time.sleep(10)))
      .setDebugSeeds([5])
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(0);
    expect(resumed).toBe(false);
    expect(finallyRan).toBe(false);
  });

  it("reports a deadlock naming the seed and what was stuck, and the campaign goes on", async () => {
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () => proc("server", async (ctx) => void (await ctx.network.bind(`${ctx.myIp}:1`)).accept()))
      .workloadFactory(() =>
        workload("stuck", async (ctx) => {
          // Deadlocks on seeds whose draw is 0, finishes on the others.
          if (ctx.random.randomRange(0, 2) === 0) await ctx.time.sleep(1).then(() => new Promise<void>(() => {}));
          else await ctx.time.sleep(1);
        }),
      )
      .setBaseSeed(7)
      .setIterations(12)
      .run();
    expect(report.iterations).toBe(12);
    expect(report.failedRuns).toBeGreaterThan(0);
    expect(report.successfulRuns).toBeGreaterThan(0);
    const failed = report.seeds.find((s) => !s.ok)!;
    const deadlock = failed.failures.find((f) => f.kind === "deadlock")!;
    expect(deadlock.message).toContain(`seed ${failed.seed}`);
    expect(deadlock.message).toContain("stuck@10.0.0.1");
  });

  it("fails a seed whose workload outlives the run-time budget", async () => {
    const report = await one(
      () =>
        workload("forever", async (ctx) => {
          for (;;) await ctx.time.sleep(1000);
        }),
      (b) => b.runTimeBudget(60_000),
    );
    expect(report.failedRuns).toBe(1);
    const f = report.seeds[0]!.failures[0]!;
    expect(f.kind).toBe("runTimeBudget");
    expect(f.message).toContain("seed 42");
    expect(f.message).toContain("forever@10.0.0.1");
    expect(report.seeds[0]!.simulatedTimeMs).toBeLessThanOrEqual(60_000 + 300_000);
  });

  it("fails a seed that keeps yielding without letting time advance (busy loop)", async () => {
    const report = await one(
      () =>
        workload("spinner", async (ctx) => {
          for (;;) await ctx.task.yieldNow();
        }),
      (b) => b.maxStepsPerInstant(5000),
    );
    expect(report.failedRuns).toBe(1);
    expect(report.seeds[0]!.failures[0]!.kind).toBe("busyLoop");
    expect(report.seeds[0]!.failures[0]!.message).toContain("seed 42");
  });

  it("the default run-time budget is one simulated hour", async () => {
    const report = await one(() =>
      workload("forever", async (ctx) => {
        for (;;) await ctx.time.sleep(60_000);
      }),
    );
    expect(report.seeds[0]!.failures[0]!.kind).toBe("runTimeBudget");
    expect(report.seeds[0]!.failures[0]!.message).toContain("3600000 ms");
  });

  it("an unhandled rejection in simulated code fails the seed with its stack and never crashes the runner", async () => {
    const report = await one(() =>
      workload("leaky", async (ctx) => {
        void Promise.reject(new Error("nobody catches me"));
        await ctx.time.sleep(5);
      }),
    );
    expect(report.failedRuns).toBe(1);
    const f = report.seeds[0]!.failures.find((x) => x.kind === "unhandledRejection")!;
    expect(f.message).toContain("nobody catches me");
    expect(f.stack).toContain("lifecycle.test.ts");
  });

  it("a rejection handled before its step's microtasks drain is not a failure; one handled in a later step is, as in Node", async () => {
    const sameStep = await one(() =>
      workload("same-step-handler", async (ctx) => {
        const p = Promise.reject(new Error("handled in time"));
        await Promise.resolve();
        await p.catch(() => undefined);
        await ctx.time.sleep(5);
      }),
    );
    expect(sameStep.failedRuns).toBe(0);
    const later = await one(() =>
      workload("late-handler", async (ctx) => {
        const p = Promise.reject(new Error("handled too late"));
        await ctx.time.sleep(5);
        await p.catch(() => undefined);
      }),
    );
    expect(later.seeds[0]!.failures.map((f) => [f.kind, f.timeMs])).toEqual([["unhandledRejection", 0]]);
  });

  it("check() and Process.run() errors fail the seed and are reported", async () => {
    const checkFail = await one(() =>
      workload("w", (ctx) => ctx.time.sleep(1), { check: async () => Promise.reject(new Error("model mismatch")) }),
    );
    expect(checkFail.seeds[0]!.failures.map((f) => f.kind)).toEqual(["check"]);
    expect(checkFail.seeds[0]!.failures[0]!.message).toContain("model mismatch");

    const procFail = await new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () => proc("bad", async () => Promise.reject(new Error("server bug"))))
      .workloadFactory(() => workload("w", (ctx) => ctx.time.sleep(1)))
      .setDebugSeeds([1])
      .setIterations(1)
      .run();
    expect(procFail.seeds[0]!.failures[0]!.kind).toBe("process");
    expect(procFail.seeds[0]!.failures[0]!.message).toContain("server bug");
    expect(procFail.seeds[0]!.failures[0]!.actor).toBe("bad@10.0.1.1");
  });

  it("an invariant that throws fails the seed once and is reported", async () => {
    const report = await one(
      () => workload("w", (ctx) => ctx.time.sleep(3)),
      (b) =>
        b.invariantFn("grumpy", () => {
          throw new Error("invariant bug");
        }),
    );
    expect(report.seeds[0]!.failures.filter((f) => f.kind === "invariant")).toHaveLength(1);
  });
});

describe("topology and contexts", () => {
  it("gives each group its own 10.0.{group}.x range, ids within the group, and tags", async () => {
    const seen: Record<string, { id: number; count: number; tags: Record<string, string> }> = {};
    let groups: string[] = [];
    let acceptors: string[] = [];
    const role = (name: string) => () =>
      proc(name, async (ctx) => {
        seen[ctx.myIp] = { id: ctx.clientId, count: ctx.clientCount, tags: { ...ctx.topology.myTags } };
      });
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .processes(3, role("acceptor"))
      .tags({ zone: ["a", "b"] })
      .processes(2, role("learner"))
      .workloadFactory(() =>
        workload("w", async (ctx) => {
          await ctx.time.sleep(1);
          groups = ctx.topology.groups();
          acceptors = ctx.topology.ipsInGroup("acceptor");
        }),
      )
      .setDebugSeeds([9])
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(0);
    expect(groups).toEqual(["acceptor", "learner"]);
    expect(acceptors).toEqual(["10.0.1.1", "10.0.1.2", "10.0.1.3"]);
    expect(seen["10.0.1.3"]).toEqual({ id: 2, count: 3, tags: { zone: "a" } });
    expect(seen["10.0.1.2"]!.tags).toEqual({ zone: "b" });
    expect(seen["10.0.2.2"]).toEqual({ id: 1, count: 2, tags: {} });
  });

  it("shares a per-seed state board between actors", async () => {
    let read: unknown;
    await new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () => proc("pub", async (ctx) => ctx.state.publish("leader", ctx.myIp)))
      .workloadFactory(() =>
        workload("w", async (ctx) => {
          await ctx.time.sleep(1);
          read = ctx.state.get("leader");
        }),
      )
      .setDebugSeeds([1])
      .setIterations(1)
      .run();
    expect(read).toBe("10.0.1.1");
  });
});

describe("configuration errors", () => {
  it("rejects impossible builder configurations with actionable messages", async () => {
    await expect(new SimulationBuilder().clockFaults("none").run()).rejects.toThrow(/no workloads.*workloadFactory/);
    expect(() => new SimulationBuilder().clockFaults("none").processes(0, () => proc("p", async () => {}))).toThrow(
      InvalidConfiguration,
    );
    expect(() =>
      new SimulationBuilder().clockFaults("none").processes([3, 2], () => proc("p", async () => {})),
    ).toThrow(/min 3 is greater than max 2/);
    expect(() => new SimulationBuilder().clockFaults("none").tags({ role: ["a"] })).toThrow(
      /tags\(\) must be called after processes\(\)/,
    );
    expect(() =>
      new SimulationBuilder()
        .clockFaults("none")
        .processes(1, () => proc("p", async () => {}))
        .processes(1, () => proc("p", async () => {})),
    ).toThrow(/already registered/);
    expect(() => new SimulationBuilder().clockFaults("none").allowGlobal("Math.sqrt")).toThrow(
      /valid names: Math.random/,
    );
    expect(() => new SimulationBuilder().clockFaults("none").setIterations(0)).toThrow(/positive integer/);
    expect(() => new SimulationBuilder().clockFaults("none").setDebugSeeds([-1])).toThrow(/non-negative safe integer/);
    expect(() =>
      new SimulationBuilder()
        .clockFaults("none")
        .workloads(WorkloadCount.random(3, 3), () => workload("w", async () => {})),
    ).toThrow(/0 <= lo < hi/);
    expect(() =>
      new SimulationBuilder().clockFaults("none").processes(1, () => ({ name: "x" }) as unknown as Process),
    ).toThrow(/async 'run\(ctx\)'/);
  });

  it("refuses a second concurrent run() in the same realm", async () => {
    const slow = new SimulationBuilder()
      .clockFaults("none")
      .workloadFactory(() => workload("w", (ctx) => ctx.time.sleep(10)))
      .setIterations(50)
      .setBaseSeed(1);
    const first = slow.run();
    await expect(slow.run()).rejects.toThrow(/another simulation is already running/);
    expect((await first).iterations).toBe(50);
  });
});
