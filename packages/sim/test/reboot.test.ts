/**
 * Process reboots through `FaultContext`: crash (dead at its next await), graceful (flush within
 * the grace period), force kill of a stuck process, restart with a fresh instance, storage across
 * reboots and wipes, dead count, overlapping reboots, the cutoff, and the argument checks.
 *
 * These simulations run exact clocks (`.clockFaults("none")`): they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { describe, expect, it } from "vitest";
import { isAbortError, OpenOptions } from "@moonpool/core";
import {
  DEFAULT_STORAGE_CONFIG,
  REBOOT_ASSERTIONS,
  SimulationBuilder,
  STORAGE_FAULT_KINDS,
  type FaultContext,
  type FaultInjector,
  type Process,
  type Workload,
  WorkloadCount,
} from "../src/index.ts";
import { checkTimeline, Journal, lifecycleRecorder, P, worldOf } from "./fixtures/reboot-helpers.ts";

const sleeper = (ms: number): Workload => ({ name: "sleeper", run: (ctx) => ctx.time.sleep(ms) });

/** An injector from a script; it ends by waiting for the cutoff. */
function script(fn: (ctx: FaultContext) => Promise<void>): () => FaultInjector {
  return () => ({
    name: "script",
    async inject(ctx) {
      await fn(ctx);
      try {
        for (;;) await ctx.time.sleep(60_000);
      } catch (error) {
        if (!isAbortError(error)) throw error;
      }
    },
  });
}

function builder(factory: () => Process, injector: () => FaultInjector, runMs = 10_000, chaosMs = 8_000) {
  return new SimulationBuilder()
    .clockFaults("none")
    .networkFaults("none")
    .processes(1, factory)
    .workloadFactory(() => sleeper(runMs))
    .chaosDuration(chaosMs)
    .faultFactory(injector)
    .setDebugSeeds([7])
    .setIterations(1);
}

describe("crash reboots", () => {
  it("a crash stops the process at its next await: nothing after it runs, no finally; a fresh instance restarts after the recovery delay", async () => {
    const marks: { boot: number; step: string; atMs: number }[] = [];
    const finallies: number[] = [];
    let boots = 0;
    const factory = (): Process => ({
      name: "worker",
      async run(ctx) {
        const boot = ++boots;
        const file = await ctx.storage.open("data", OpenOptions.readWriteCreate);
        try {
          for (let i = 0; ; i++) {
            marks.push({ boot, step: "sleep", atMs: ctx.time.now() });
            await ctx.time.sleep(100);
            marks.push({ boot, step: "write", atMs: ctx.time.now() });
            await file.write(i * 8, new Uint8Array(8));
            marks.push({ boot, step: "sync", atMs: ctx.time.now() });
            await file.sync();
          }
        } finally {
          finallies.push(boot);
        }
      },
    });
    let crashedAt = -1;
    const rec = lifecycleRecorder(["process_started"]);
    const report = await builder(
      factory,
      script(async (ctx) => {
        await ctx.time.sleep(1_050);
        crashedAt = ctx.time.now();
        expect(ctx.rebootWithDelays(ctx.processIps()[0]!, "crash", 500, 0)).toBe(true);
        expect(ctx.deadCount()).toBe(1);
        expect(ctx.isDead(ctx.processIps()[0]!)).toBe(true);
      }),
    )
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    // Counted by the factory call at build time too: boots counts run() calls only.
    expect(boots).toBe(2);
    const first = marks.filter((m) => m.boot === 1);
    expect(first.length).toBeGreaterThan(10);
    for (const m of first) expect(m.atMs).toBeLessThanOrEqual(crashedAt);
    expect(finallies).toEqual([]); // neither the crash nor the end of the run runs a finally
    const second = marks.filter((m) => m.boot === 2);
    expect(second[0]!.atMs).toBeGreaterThanOrEqual(crashedAt + 500);
    const faults = rec.seeds[0]!.faults;
    expect(faults.map((f) => f.str("kind"))).toEqual([P.crash, STORAGE_FAULT_KINDS.crash, P.restart]);
    expect(faults[0]!.timeMs).toBe(crashedAt);
    expect(faults[0]!.fields).toMatchObject({ ip: "10.0.1.1", wipe: false, recoveryDelayMs: 500, cause: "injector" });
    expect(faults[2]!.timeMs).toBe(crashedAt + 500);
    expect(rec.seeds[0]!.events.map((e) => e.timeMs)).toEqual([0, crashedAt + 500]);
    expect(report.seeds[0]!.chaos.reboots).toMatchObject({ crash: 1, restarts: 1, ignored: 0 });
    expect(report.assertionDetails.find((d) => d.message === REBOOT_ASSERTIONS.crashPath)?.status).toBe("PASS");
    expect(report.assertionDetails.find((d) => d.message === REBOOT_ASSERTIONS.restarted)?.status).toBe("PASS");
  });

  it("a crash resets the process's connections and frees its port for the next instance", async () => {
    const log: string[] = [];
    const server = (): Process => ({
      name: "server",
      async run(ctx) {
        const listener = await ctx.network.bind(`${ctx.myIp}:9000`);
        log.push(`bound@${Math.floor(ctx.time.now())}`);
        for (;;) {
          const conn = await listener.accept();
          void conn.read().catch(() => undefined);
        }
      },
    });
    const client: Workload = {
      name: "client",
      async run(ctx) {
        await ctx.time.sleep(100);
        const conn = await ctx.network.connect("10.0.1.1:9000");
        try {
          await conn.read();
          log.push(`read ended@${ctx.time.now()}`);
        } catch (error) {
          log.push(`read failed@${Math.floor(ctx.time.now())}:${(error as { code?: string }).code}`);
        }
        await ctx.time.sleep(3_000);
      },
    };
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .processes(1, server)
      .workloadFactory(() => client)
      .chaosDuration(2_000)
      .faultFactory(
        script(async (ctx) => {
          await ctx.time.sleep(1_000);
          ctx.rebootWithDelays("10.0.1.1", "crash", 200, 0);
        }),
      )
      .setDebugSeeds([3])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(log).toEqual(["bound@0", "read failed@1000:ECONNRESET", "bound@1200"]);
  });

  it("synced data survives crashes of the same IP; crash-and-wipe deletes every file", async () => {
    const seen: string[][] = [];
    const factory = (): Process => ({
      name: "keeper",
      async run(ctx) {
        seen.push(await ctx.storage.list());
        const f = await ctx.storage.open(`boot-${seen.length}`, OpenOptions.readWriteCreate);
        await f.write(0, new Uint8Array([seen.length]));
        await f.sync();
        for (;;) await ctx.time.sleep(1_000);
      },
    });
    const rec = lifecycleRecorder();
    const report = await builder(
      factory,
      script(async (ctx) => {
        await ctx.time.sleep(1_000);
        ctx.rebootWithDelays("10.0.1.1", "crash", 100, 0);
        await ctx.time.sleep(1_000);
        ctx.rebootWithDelays("10.0.1.1", "graceful", 100, 100);
        await ctx.time.sleep(1_000);
        ctx.rebootWithDelays("10.0.1.1", "crashAndWipe", 100, 0);
      }),
    )
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toEqual([[], ["boot-1"], ["boot-1", "boot-2"], []]);
    const kinds = rec.seeds[0]!.faults.map((f) => f.str("kind"));
    // The graceful reboot is a clean exit (its sleep rejected with the AbortError): no storage crash.
    expect(kinds).toEqual([
      P.crash,
      STORAGE_FAULT_KINDS.crash,
      P.restart,
      P.gracefulShutdown,
      P.forceKill,
      P.restart,
      P.crash,
      STORAGE_FAULT_KINDS.crash,
      STORAGE_FAULT_KINDS.wipe,
      P.restart,
    ]);
    expect(report.seeds[0]!.chaos.reboots).toMatchObject({
      graceful: 1,
      crash: 1,
      crashAndWipe: 1,
      forceKills: 0,
      cleanExits: 1,
      restarts: 3,
    });
  });
});

describe("graceful reboots", () => {
  /** Crash faults on every unsynced write: what a force kill leaves unsynced is lost. */
  const lossyStorage: Workload = {
    name: "sleeper",
    async setup(ctx) {
      worldOf(ctx).storage.setConfig({ ...DEFAULT_STORAGE_CONFIG, crashFaultProbability: 1, crashLostWriteRatio: 1 });
    },
    run: (ctx) => ctx.time.sleep(10_000),
  };

  it("a graceful reboot lets the process flush within the grace period: no crash, nothing lost", async () => {
    const rec = lifecycleRecorder(["journal_boot", "journal_flushed"]);
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .processes(1, () => new Journal("journal", 100, 1_000))
      .workloadFactory(() => lossyStorage)
      .chaosDuration(8_000)
      .faultFactory(
        script(async (ctx) => {
          await ctx.time.sleep(1_050);
          ctx.rebootWithDelays("10.0.1.1", "graceful", 700, 3_000);
        }),
      )
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setDebugSeeds([11])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const { faults, events } = rec.seeds[0]!;
    expect(faults.map((f) => f.str("kind"))).toEqual([P.gracefulShutdown, P.forceKill, P.restart]);
    expect(faults[0]!.fields).toMatchObject({ gracePeriodMs: 3_000, recoveryDelayMs: 700 });
    expect(faults[1]!.timeMs - faults[0]!.timeMs).toBe(3_000);
    expect(faults[1]!.bool("running")).toBe(false);
    expect(faults[2]!.timeMs - faults[1]!.timeMs).toBe(700);
    const flushed = events.find((e) => e.name === "journal_flushed")!;
    expect(flushed.timeMs).toBeLessThan(faults[1]!.timeMs);
    const boots = events.filter((e) => e.name === "journal_boot").map((e) => e.num("records"));
    // About ten unsynced records when the signal came: the flush kept every one of them.
    expect(flushed.num("records")).toBeGreaterThanOrEqual(9);
    expect(boots).toEqual([0, flushed.num("records")]);
    expect(report.seeds[0]!.chaos.reboots).toMatchObject({ graceful: 1, cleanExits: 1, forceKills: 0 });
    expect(report.assertionDetails.find((d) => d.message === REBOOT_ASSERTIONS.exitedWithinGrace)?.status).toBe("PASS");
  });

  it("a process that ignores the signal is force-killed after the grace period: its storage crashes, nothing of it runs after", async () => {
    const marks: { boot: number; atMs: number }[] = [];
    let boots = 0;
    const stubborn = (): Process => ({
      name: "stubborn",
      async run(ctx) {
        const boot = ++boots;
        const file = await ctx.storage.open("data", OpenOptions.readWriteCreate);
        ctx.trace.info("stubborn_boot", { bytes: await file.size() });
        await file.write(0, new Uint8Array(512).fill(1));
        await file.sync();
        for (let i = 1; ; i++) {
          try {
            await ctx.time.sleep(100);
          } catch (error) {
            if (!isAbortError(error)) throw error; // ignores the shutdown and keeps writing
          }
          marks.push({ boot, atMs: ctx.time.now() });
          await file.write(i * 512, new Uint8Array(512).fill(2)); // never synced again
        }
      },
    });
    const rec = lifecycleRecorder(["stubborn_boot"]);
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .processes(1, stubborn)
      .workloadFactory(() => lossyStorage)
      .chaosDuration(8_000)
      .faultFactory(
        script(async (ctx) => {
          await ctx.time.sleep(1_000);
          ctx.rebootWithDelays("10.0.1.1", "graceful", 500, 2_000);
        }),
      )
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setDebugSeeds([12])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const { faults, events } = rec.seeds[0]!;
    expect(faults.map((f) => f.str("kind"))).toEqual([
      P.gracefulShutdown,
      P.forceKill,
      STORAGE_FAULT_KINDS.crash,
      P.restart,
    ]);
    const [shutdown, kill, storageCrash] = faults as [(typeof faults)[0], (typeof faults)[0], (typeof faults)[0]];
    expect(kill.timeMs - shutdown.timeMs).toBe(2_000);
    expect(kill.bool("running")).toBe(true);
    expect(storageCrash.num("lostWrites")).toBeGreaterThan(20);
    // It kept running through the grace period, and stopped dead at the kill.
    const first = marks.filter((m) => m.boot === 1);
    expect(first.some((m) => m.atMs > shutdown.timeMs + 1_000)).toBe(true);
    for (const m of first) expect(m.atMs).toBeLessThanOrEqual(kill.timeMs);
    // The next instance sees only the synced first sector.
    expect(events.map((e) => e.num("bytes"))).toEqual([0, 512]);
    expect(report.assertionDetails.find((d) => d.message === REBOOT_ASSERTIONS.forceKilled)?.status).toBe("PASS");
  });

  it("restarts a process that exited on its own, and a restarted process sees the shutdown once the run is ending", async () => {
    const aborted: boolean[] = [];
    const factory = (): Process => ({
      name: "brief",
      async run(ctx) {
        aborted.push(ctx.shutdown.aborted);
      },
    });
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .processes(1, factory)
      // w0 finishes at 500 (shutdown triggered); w1 keeps the run going until 3000.
      .workloads(WorkloadCount.fixed(2), (i) => sleeper(i === 0 ? 500 : 3_000))
      .chaosDuration(2_500)
      .faultFactory(
        script(async (ctx) => {
          await ctx.time.sleep(100);
          ctx.rebootWithDelays("10.0.1.1", "graceful", 100, 100);
          await ctx.time.sleep(900);
          ctx.rebootWithDelays("10.0.1.1", "crash", 100, 0);
        }),
      )
      .setDebugSeeds([1])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(aborted).toEqual([false, false, true]);
  });
});

describe("reboot bookkeeping", () => {
  it("a reboot of a dead process is ignored, traced and counted; the dead count follows reboots and restarts", async () => {
    const results: unknown[] = [];
    const rec = lifecycleRecorder(["reboot_ignored"]);
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .processes(3, () => new Journal())
      .workloadFactory(() => sleeper(10_000))
      .chaosDuration(8_000)
      .faultFactory(
        script(async (ctx) => {
          await ctx.time.sleep(1_000);
          const [a, b] = ctx.processIps() as [string, string];
          results.push(ctx.rebootWithDelays(a, "crash", 1_000, 0));
          results.push(ctx.rebootWithDelays(a, "graceful", 1_000, 100));
          results.push(ctx.rebootWithDelays(b, "graceful", 1_000, 500));
          results.push(ctx.deadCount());
          await ctx.time.sleep(200);
          results.push(ctx.rebootWithDelays(b, "crash", 1_000, 0)); // still in its grace period: dead already
          await ctx.time.sleep(900);
          results.push(ctx.deadCount()); // a restarted at 2000, b still down until 2500
          results.push(ctx.isDead(a), ctx.isDead(b));
          await ctx.time.sleep(500);
          results.push(ctx.deadCount());
        }),
      )
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setDebugSeeds([5])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(results).toEqual([true, false, true, 2, false, 1, false, true, 0]);
    const ignored = rec.seeds[0]!.events;
    expect(ignored.map((e) => e.str("ip"))).toEqual(["10.0.1.1", "10.0.1.2"]);
    expect(report.seeds[0]!.chaos.reboots).toMatchObject({ crash: 1, graceful: 1, ignored: 2, restarts: 2 });
    checkTimeline(rec.seeds[0]!.faults);
    const bound = report.assertionDetails.find((d) => d.message === REBOOT_ASSERTIONS.deadCountBound);
    expect(bound?.status).toBe("PASS");
  });

  it("default delays: recovery 1000..10000 ms, grace 2000..5000 ms, drawn per reboot", async () => {
    const rec = lifecycleRecorder();
    await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .processes(4, () => new Journal())
      .workloadFactory(() => sleeper(40_000))
      .chaosDuration(30_000)
      .faultFactory(
        script(async (ctx) => {
          for (let i = 0; i < 6; i++) {
            for (const ip of ctx.processIps()) ctx.reboot(ip, i % 2 === 0 ? "graceful" : "crash");
            await ctx.time.sleep(4_000);
          }
        }),
      )
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setBaseSeed(9)
      .setIterations(10)
      .run();
    const grace = new Set<number>();
    const recovery = new Set<number>();
    for (const seed of rec.seeds) {
      checkTimeline(seed.faults);
      for (const f of seed.faults) {
        if (f.num("gracePeriodMs") !== undefined) grace.add(f.num("gracePeriodMs")!);
        if (f.num("recoveryDelayMs") !== undefined) recovery.add(f.num("recoveryDelayMs")!);
      }
    }
    expect(Math.min(...grace)).toBeGreaterThanOrEqual(2_000);
    expect(Math.max(...grace)).toBeLessThanOrEqual(5_000);
    expect(Math.min(...recovery)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...recovery)).toBeLessThanOrEqual(10_000);
    expect(grace.size).toBeGreaterThan(20);
    expect(recovery.size).toBeGreaterThan(40);
  });

  it("after the cutoff reboots are ignored and traced; reboots under way still restart", async () => {
    const results: unknown[] = [];
    const rec = lifecycleRecorder(["fault_ignored_after_cutoff"]);
    class Late implements FaultInjector {
      readonly name = "late";
      async inject(ctx: FaultContext): Promise<void> {
        await ctx.time.sleep(900);
        ctx.rebootWithDelays("10.0.1.1", "crash", 2_000, 0);
        try {
          await ctx.time.sleep(60_000);
        } catch {
          results.push(
            ctx.reboot("10.0.1.2", "crash"),
            ctx.rebootRandom("crash"),
            ctx.rebootTagged("x", "y", "graceful"),
            ctx.rebootDomain("machine", "dc1-z1-m1", "crash"),
          );
        }
      }
    }
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .processes(2, () => new Journal())
      .workloadFactory(() => sleeper(5_000))
      .chaosDuration(1_000)
      .faultFactory(() => new Late())
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setDebugSeeds([2])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(results).toEqual([false, null, [], []]);
    expect(rec.seeds[0]!.events.map((e) => e.str("call"))).toEqual([
      "reboot",
      "rebootRandom",
      "rebootTagged",
      "rebootDomain",
    ]);
    expect(rec.seeds[0]!.faults.map((f) => [f.str("kind"), f.timeMs])).toEqual([
      [P.crash, 900],
      [STORAGE_FAULT_KINDS.crash, 900],
      [P.restart, 2_900],
    ]);
  });

  it("reboots under way when the run ends are dropped: no restart after the run phase", async () => {
    const rec = lifecycleRecorder();
    const report = await builder(
      () => new Journal(),
      script(async (ctx) => {
        await ctx.time.sleep(500);
        ctx.rebootWithDelays("10.0.1.1", "crash", 5_000, 0);
      }),
      1_000,
      900,
    )
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(rec.seeds[0]!.faults.map((f) => f.str("kind"))).toEqual([P.crash, STORAGE_FAULT_KINDS.crash]);
  });

  it("checks its arguments: a process IP, a kind, valid delays, a domain level", async () => {
    const errors: string[] = [];
    const report = await builder(
      () => new Journal(),
      script(async (ctx) => {
        const attempts: (() => unknown)[] = [
          () => ctx.reboot("10.0.0.1", "crash"), // the workload
          () => ctx.reboot("not-an-ip", "crash"),
          () => ctx.reboot("10.0.1.1", "kill" as never),
          () => ctx.rebootWithDelays("10.0.1.1", "crash", -1, 0),
          () => ctx.rebootWithDelays("10.0.1.1", "crash", [5, 1], 0),
          () => ctx.rebootWithDelays("10.0.1.1", "graceful", 10, 1.5),
          () => ctx.rebootDomain("rack" as never, "r1", "crash"),
        ];
        for (const attempt of attempts) {
          try {
            attempt();
            errors.push("no error");
          } catch (error) {
            errors.push(error instanceof RangeError ? error.message : `not a RangeError: ${String(error)}`);
          }
        }
      }),
    ).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(errors[0]).toMatch(/10\.0\.0\.1 is not a process IP/);
    expect(errors[1]).toMatch(/not an IPv4 address/);
    expect(errors[2]).toMatch(/kind must be one of "graceful", "crash", "crashAndWipe"/);
    expect(errors[3]).toMatch(/recoveryDelayMs must be a whole number/);
    expect(errors[4]).toMatch(/recoveryDelayMs must be/);
    expect(errors[5]).toMatch(/gracePeriodMs must be/);
    expect(errors[6]).toMatch(/level must be "datacenter", "zone" or "machine"/);
  });
});
