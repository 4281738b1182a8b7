/**
 * Topology queries (sorted, deterministic) and the group reboots of `FaultContext`: by tag, by
 * machine, by failure domain, at random; plus crashes at random instants over many seeds.
 *
 * These simulations run exact clocks (`.clockFaults("none")`): they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { describe, expect, it } from "vitest";
import { isAbortError, OpenOptions } from "@moonpool/core";
import { SimulationBuilder, type FaultContext, type FaultInjector, type Process, type Topology } from "../src/index.ts";
import { checkTimeline, Idle, lifecycleRecorder } from "./fixtures/reboot-helpers.ts";

describe("topology queries", () => {
  it("peers, groups, tags, localities and the machine registry come back sorted and complete", async () => {
    let fromWorkload: Topology | undefined;
    const views = new Map<
      string,
      { peers: { name: string; ip: string }[]; onMyMachine: string[]; group: string | undefined }
    >();
    const viewer = (name: string) => (): Process => ({
      name,
      async run(ctx) {
        views.set(ctx.myIp, {
          peers: ctx.topology.peers(),
          onMyMachine: ctx.topology.peersOnMyMachine(),
          group: ctx.topology.myGroup,
        });
        try {
          for (;;) await ctx.time.sleep(1_000);
        } catch (error) {
          if (!isAbortError(error)) throw error;
        }
      },
    });
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .processes(12, viewer("store"))
      .tags({ role: ["leader", "follower", "witness"], disk: ["ssd"] })
      .cluster({ datacenters: 1, zonesPerDatacenter: 1, machinesPerZone: 11, processesPerMachine: 2 }, viewer("node"))
      .workloadFactory(() => ({
        name: "w",
        async run(ctx) {
          fromWorkload = ctx.topology;
          await ctx.time.sleep(10);
        },
      }))
      .setDebugSeeds([1])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const t = fromWorkload!;
    expect(t.groups()).toEqual(["store", "node"]);
    const stores = Array.from({ length: 12 }, (_, i) => `10.0.1.${i + 1}`);
    expect(t.ipsInGroup("store")).toEqual(stores);
    expect(t.allProcessIps().slice(0, 12)).toEqual(stores);
    expect(t.allProcessIps()).toHaveLength(34);
    expect(t.processIps).toEqual(t.allProcessIps()); // a workload is not a process
    expect(t.tagKeys()).toEqual(["disk", "role"]);
    expect(t.tagValues("role")).toEqual(["follower", "leader", "witness"]);
    expect(t.tagValues("nope")).toEqual([]);
    expect(t.ipsTagged("role", "leader")).toEqual(["10.0.1.1", "10.0.1.4", "10.0.1.7", "10.0.1.10"]);
    expect(t.tagsFor("10.0.1.2")).toEqual({ role: "follower", disk: "ssd" });
    expect(t.groupOf("10.0.2.3")).toBe("node");
    expect(t.groupOf("10.0.0.1")).toBeUndefined();
    const machines = t.machines();
    expect(machines).toHaveLength(11);
    expect(machines.slice(8)).toEqual(["dc1-z1-m9", "dc1-z1-m10", "dc1-z1-m11"]);
    expect(t.zones()).toEqual(["dc1-z1"]);
    expect(t.datacenters()).toEqual(["dc1"]);
    expect(t.ipsOnMachine("dc1-z1-m10")).toEqual(["10.0.2.19", "10.0.2.20"]);
    expect(t.localityFor("10.0.2.20")).toEqual({ datacenter: "dc1", zone: "dc1-z1", machine: "dc1-z1-m10" });
    expect(t.localityFor("10.0.1.1")).toBeUndefined();
    expect(t.ipsInDomain("zone", "dc1-z1")).toHaveLength(22);
    expect(t.peerByName("node-3")).toBe("10.0.2.4");
    // A process's view: peers exclude itself, in IP order; its machine mates.
    const view = views.get("10.0.2.3")!;
    expect(view.group).toBe("node");
    expect(view.peers).toHaveLength(33);
    expect(view.peers.some((p) => p.ip === "10.0.2.3")).toBe(false);
    expect(view.peers.slice(0, 3)).toEqual([
      { name: "store-0", ip: "10.0.1.1" },
      { name: "store-1", ip: "10.0.1.2" },
      { name: "store-2", ip: "10.0.1.3" },
    ]);
    expect(view.onMyMachine).toEqual(["10.0.2.4"]);
    expect(views.get("10.0.1.5")!.onMyMachine).toEqual([]);
  });
});

describe("group reboots from a fault injector", () => {
  it("rebootMachine, rebootDomain, rebootTagged and rebootRandom reboot the live processes they name", async () => {
    const results: Record<string, unknown> = {};
    class Grouped implements FaultInjector {
      readonly name = "grouped";
      async inject(ctx: FaultContext): Promise<void> {
        await ctx.time.sleep(1_000);
        results.machine = ctx.rebootMachine("dc1-z1-m2", "crash");
        // The zone holds the machine just rebooted: only its other machine's processes are live.
        results.zone = ctx.rebootDomain("zone", "dc1-z1", "graceful");
        results.deadAfterZone = ctx.deadCount();
        results.tagged = ctx.rebootTagged("role", "b", "crashAndWipe");
        results.unknownDomain = ctx.rebootDomain("datacenter", "dc9", "crash");
        const picked: (string | null)[] = [];
        for (let i = 0; i < 12; i++) picked.push(ctx.rebootRandom("crash"));
        results.picked = picked;
        results.deadAfterAll = ctx.deadCount();
        try {
          for (;;) await ctx.time.sleep(60_000);
        } catch (error) {
          if (!isAbortError(error)) throw error;
        }
      }
    }
    const rec = lifecycleRecorder();
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .cluster(
        { datacenters: 2, zonesPerDatacenter: 2, machinesPerZone: 2, processesPerMachine: 2 },
        () => new Idle("node"),
      )
      .processes(4, () => new Idle("spare"))
      .tags({ role: ["a", "b"] })
      .workloadFactory(() => ({ name: "w", run: (ctx) => ctx.time.sleep(20_000) }))
      .chaosDuration(15_000)
      .faultFactory(() => new Grouped())
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setDebugSeeds([4])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(results.machine).toEqual(["10.0.1.3", "10.0.1.4"]);
    expect(results.zone).toEqual(["10.0.1.1", "10.0.1.2"]);
    expect(results.deadAfterZone).toBe(4);
    expect(results.tagged).toEqual(["10.0.2.2", "10.0.2.4"]);
    expect(results.unknownDomain).toEqual([]);
    const picked = results.picked as (string | null)[];
    // 20 processes, 6 dead: each pick is a live process, so 12 picks are 12 different processes.
    expect(picked.every((ip) => ip !== null)).toBe(true);
    expect(new Set(picked).size).toBe(12);
    for (const ip of picked)
      expect([
        ...(results.machine as string[]),
        ...(results.zone as string[]),
        ...(results.tagged as string[]),
      ]).not.toContain(ip);
    expect(results.deadAfterAll).toBe(18);
    expect(report.seeds[0]!.chaos.reboots).toMatchObject({ ignored: 2 }); // the zone's two dead machine mates
    const t = checkTimeline(rec.seeds[0]!.faults);
    expect(t.complete).toBe(18);
  });
});

describe("crashes at random instants", () => {
  it("whatever the process awaits when it crashes (sleep, write, read, sync), it never resumes", async () => {
    const violations: string[] = [];
    const awaitedAtCrash = new Set<string>();
    let marks: { boot: number; awaiting: string; atMs: number }[] = [];
    let boots = 0;
    let crashedAt = -1;
    const busy = (): Process => ({
      name: "busy",
      async run(ctx) {
        const boot = ++boots;
        const mark = (awaiting: string) => marks.push({ boot, awaiting, atMs: ctx.time.now() });
        const file = await ctx.storage.open("f", OpenOptions.readWriteCreate);
        for (let i = 0; ; i++) {
          mark("sleep");
          await ctx.time.sleep(ctx.random.randomRange(1, 5));
          mark("write");
          await file.write((i % 64) * 4096, new Uint8Array(4096));
          mark("read");
          await file.read(0, 4096);
          mark("sync");
          await file.sync();
        }
      },
    });
    const checkSeed = () => {
      if (crashedAt < 0) return;
      const first = marks.filter((m) => m.boot === 1);
      for (const m of first)
        if (m.atMs > crashedAt) violations.push(`boot 1 ran at ${m.atMs} after its crash at ${crashedAt}`);
      awaitedAtCrash.add(first[first.length - 1]!.awaiting);
      if (!marks.some((m) => m.boot === 2)) violations.push("no restart");
    };
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .networkFaults("none")
      .processes(1, busy)
      .workloadFactory(() => ({ name: "w", run: (ctx) => ctx.time.sleep(3_000) }))
      .chaosDuration(2_000)
      .faultFactory(() => ({
        name: "crasher",
        async inject(ctx) {
          await ctx.time.sleep(ctx.random.randomRange(100, 1_000) + ctx.random.randomRange(0, 1_000) / 1_000);
          crashedAt = ctx.time.now();
          ctx.rebootWithDelays("10.0.1.1", "crash", 100, 0);
        },
      }))
      .beforeIteration(() => {
        checkSeed();
        marks = [];
        boots = 0;
        crashedAt = -1;
      })
      .setBaseSeed(17)
      .setIterations(80)
      .run();
    checkSeed();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(violations).toEqual([]);
    expect([...awaitedAtCrash].sort()).toEqual(["read", "sleep", "sync", "write"]);
  });
});
