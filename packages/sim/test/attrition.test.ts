/**
 * Built-in attrition: budgets and victims over 1,000 seeds, correlated failure domains, the
 * cutoff, swarm masks, the seed's record, and the builder's validation.
 */
import { describe, expect, it } from "vitest";
import { InvalidConfiguration } from "@moonpool/core";
import {
  ATTRITION_ASSERTIONS,
  AttritionVictims,
  Chaos,
  SimulationBuilder,
  type AttritionChaosRecord,
  type AttritionConfig,
  type SimContext,
  type TraceEvent,
  type Workload,
} from "../src/index.ts";
import { checkTimeline, Idle, lifecycleRecorder, P } from "./fixtures/reboot-helpers.ts";

const sleeper = (ms: number): Workload => ({ name: "sleeper", run: (ctx) => ctx.time.sleep(ms) });
const base: AttritionConfig = { maxDead: 1, probGraceful: 1, probCrash: 1, probWipe: 1 };

/** The IPs each reboot start (graceful shutdown or crash) takes down, with time and cause. */
function starts(faults: readonly TraceEvent[]): TraceEvent[] {
  return faults.filter((f) => f.str("kind") === P.gracefulShutdown || f.str("kind") === P.crash);
}

/** Replays a seed's lifecycle events and checks at every instant that each pool stays within its budget. */
function checkBudgets(
  faults: readonly TraceEvent[],
  pools: readonly { ips: ReadonlySet<string>; maxDead: number }[],
): number {
  const dead = new Set<string>();
  let peak = 0;
  for (const f of faults) {
    const kind = f.str("kind");
    const ip = f.str("ip")!;
    if (kind === P.gracefulShutdown || kind === P.crash) {
      if (dead.has(ip)) throw new Error(`${ip} rebooted while dead: ${f.format()}`);
      dead.add(ip);
    } else if (kind === P.restart) dead.delete(ip);
    for (const pool of pools) {
      let n = 0;
      for (const d of dead) if (pool.ips.has(d)) n++;
      if (n > pool.maxDead) throw new Error(`pool over budget (${n} > ${pool.maxDead}) at ${f.format()}`);
      peak = Math.max(peak, n);
    }
  }
  return peak;
}

describe("attrition budgets and victims", () => {
  it("over 1,000 seeds: only victims are rebooted, never one already dead, and each pool stays within maxDead", async () => {
    const rec = lifecycleRecorder();
    const report = await new SimulationBuilder()
      .networkFaults("none")
      .processes(3, () => new Idle("acceptor"))
      .processes(4, () => new Idle("learner"))
      .tags({ rack: ["a", "b"] })
      .processes(2, () => new Idle("spare"))
      .workloadFactory(() => sleeper(20_000))
      .chaosDuration(16_000)
      .enableChaos([
        Chaos.attrition(
          {
            ...base,
            maxDead: 1,
            victims: AttritionVictims.group("acceptor"),
            recoveryDelayMs: [500, 4_000],
            gracePeriodMs: [100, 1_000],
          },
          "random",
        ),
        Chaos.attrition(
          {
            ...base,
            maxDead: 2,
            probWipe: 0,
            victims: AttritionVictims.tagged("rack", "b"),
            recoveryDelayMs: [500, 6_000],
            gracePeriodMs: [100, 1_000],
          },
          "random",
        ),
      ])
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setBaseSeed(1_000)
      .setIterations(1_000)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const acceptors = new Set(["10.0.1.1", "10.0.1.2", "10.0.1.3"]);
    const rackB = new Set(["10.0.2.2", "10.0.2.4"]);
    let reboots = 0;
    let peakAcceptors = 0;
    let peakRackB = 0;
    const kinds = { graceful: 0, crash: 0, wipe: 0 };
    for (const seed of rec.seeds) {
      for (const f of starts(seed.faults)) {
        const ip = f.str("ip")!;
        expect(acceptors.has(ip) || rackB.has(ip), f.format()).toBe(true);
        expect(f.str("cause")).toBe("attrition");
        if (rackB.has(ip)) expect(f.bool("wipe") ?? false, "the rack-b entry has no wipe weight").toBe(false);
        reboots++;
      }
      peakAcceptors = Math.max(peakAcceptors, checkBudgets(seed.faults, [{ ips: acceptors, maxDead: 1 }]));
      peakRackB = Math.max(peakRackB, checkBudgets(seed.faults, [{ ips: rackB, maxDead: 2 }]));
      const t = checkTimeline(seed.faults);
      kinds.graceful += t.graceful;
      kinds.crash += t.crash;
      kinds.wipe += t.wipe;
    }
    expect(rec.seeds).toHaveLength(1_000);
    // A fresh attrition injector every seed, so every seed sees the same kind of chaos.
    expect(rec.seeds.filter((s) => starts(s.faults).length > 0).length).toBeGreaterThan(990);
    expect(reboots).toBeGreaterThan(5_000);
    expect(peakAcceptors).toBe(1);
    expect(peakRackB).toBe(2);
    for (const n of Object.values(kinds)) expect(n).toBeGreaterThan(1_000);
    expect(report.assertionDetails.find((d) => d.message === ATTRITION_ASSERTIONS.maxDeadEnforced)?.status).toBe(
      "PASS",
    );
    const kindBuckets = report.bucketSummaries.find((b) => b.message === ATTRITION_ASSERTIONS.rebootKind);
    expect(kindBuckets?.bucketsDiscovered).toBe(3);
    const targeted = report.bucketSummaries.find((b) => b.message === ATTRITION_ASSERTIONS.processTargeted);
    expect(targeted?.bucketsDiscovered).toBe(5); // 3 acceptors + 2 rack-b learners
  });

  it("a later entry for the same victims replaces the earlier one; entries for other victims are kept", async () => {
    const report = await new SimulationBuilder()
      .networkFaults("none")
      .processes(2, () => new Idle("acceptor"))
      .workloadFactory(() => sleeper(3_000))
      .chaosDuration(2_000)
      .enableChaos([
        Chaos.attrition({ ...base, maxDead: 1, victims: AttritionVictims.group("acceptor") }, "random"),
        Chaos.attrition({ ...base, maxDead: 2 }, "random"),
      ])
      .enableChaos([Chaos.attrition({ ...base, maxDead: 0, victims: AttritionVictims.group("acceptor") }, "swarm")])
      .setDebugSeeds([1])
      .setIterations(1)
      .run();
    const records = report.seeds[0]!.chaos.attrition;
    expect(records.map((r) => [r.victims, r.mode])).toEqual([
      [{ kind: "group", group: "acceptor" }, "swarm"],
      [{ kind: "any" }, "random"],
    ]);
    expect(records[0]!.maxDead).toBe(0);
  });
});

describe("correlated failure domains", () => {
  const layout = { datacenters: 2, zonesPerDatacenter: 2, machinesPerZone: 2, processesPerMachine: 2 };

  /** Each domain's IPs, as the topology reports them. */
  function domainMap(ctx: SimContext): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const id of ctx.topology.datacenters()) out.set(id, ctx.topology.ipsInDomain("datacenter", id));
    for (const id of ctx.topology.zones()) out.set(id, ctx.topology.ipsInDomain("zone", id));
    for (const id of ctx.topology.machines()) out.set(id, ctx.topology.ipsOnMachine(id));
    return out;
  }

  for (const scope of ["machine", "zone", "datacenter"] as const) {
    it(`scope "${scope}" takes down exactly the live processes of one ${scope} at once`, async () => {
      const rec = lifecycleRecorder(["attrition_domain_reboot"]);
      let domains = new Map<string, string[]>();
      const report = await new SimulationBuilder()
        .networkFaults("none")
        .cluster(layout, () => new Idle("node"))
        .processes(2, () => new Idle("outsider"))
        .workloadFactory(() => ({
          name: "sleeper",
          async setup(ctx) {
            domains = domainMap(ctx);
          },
          run: (ctx) => ctx.time.sleep(30_000),
        }))
        .chaosDuration(25_000)
        .enableChaos([
          Chaos.attrition(
            { ...base, maxDead: 16, scope, recoveryDelayMs: [2_000, 8_000], gracePeriodMs: [0, 500] },
            "random",
          ),
        ])
        .invariantFn("rec", (q) => rec.observe(q))
        .beforeIteration(rec.before)
        .setBaseSeed(77)
        .setIterations(30)
        .run();
      expect(report.failedRuns, report.toString()).toBe(0);
      const size = { machine: 2, zone: 4, datacenter: 8 }[scope];
      let domainReboots = 0;
      let partial = 0;
      for (const seed of rec.seeds) {
        const dead = new Set<string>();
        const byTime = new Map<number, TraceEvent[]>();
        for (const f of seed.faults) {
          if (f.str("kind") === P.gracefulShutdown || f.str("kind") === P.crash) {
            const list = byTime.get(f.timeMs) ?? [];
            list.push(f);
            byTime.set(f.timeMs, list);
          }
        }
        // Walk events in order so the dead set before each domain reboot is known.
        const events = [...seed.faults, ...seed.events].sort(
          (a, b) => a.timeMs - b.timeMs || (a.name === "attrition_domain_reboot" ? -1 : 1),
        );
        for (const e of events) {
          if (e.name === "attrition_domain_reboot") {
            domainReboots++;
            expect(e.str("scope")).toBe(scope);
            const all = domains.get(e.str("domain")!)!;
            expect(all).toHaveLength(size);
            const expected = all.filter((ip) => !dead.has(ip));
            if (expected.length < size) partial++;
            expect(e.str("ips")!.split(",")).toEqual(expected);
            const rebooted = (byTime.get(e.timeMs) ?? []).map((f) => f.str("ip"));
            expect(rebooted).toEqual(expected);
            const kinds = new Set(
              (byTime.get(e.timeMs) ?? []).map((f) => `${f.str("kind")}${f.bool("wipe") ? "+wipe" : ""}`),
            );
            expect(kinds.size).toBe(1);
            continue;
          }
          const kind = e.str("kind");
          const ip = e.str("ip")!;
          expect(ip.startsWith("10.0.1."), e.format()).toBe(true); // outsiders have no domain
          if (kind === P.gracefulShutdown || kind === P.crash) dead.add(ip);
          else if (kind === P.restart) dead.delete(ip);
        }
        checkTimeline(seed.faults);
      }
      expect(domainReboots).toBeGreaterThan(50);
      if (scope !== "datacenter") expect(partial).toBeGreaterThan(0);
      const buckets = report.bucketSummaries.find((b) => b.message === ATTRITION_ASSERTIONS.domainTargeted);
      expect(buckets?.bucketsDiscovered).toBeGreaterThan(0);
    });
  }

  it("a domain larger than the remaining budget is left alone (max_dead limit enforced (group))", async () => {
    const rec = lifecycleRecorder();
    const report = await new SimulationBuilder()
      .networkFaults("none")
      .cluster(layout, () => new Idle("node"))
      .workloadFactory(() => sleeper(20_000))
      .chaosDuration(15_000)
      .enableChaos([Chaos.attrition({ ...base, maxDead: 7, scope: "datacenter" }, "random")])
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setBaseSeed(3)
      .setIterations(10)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    for (const seed of rec.seeds) expect(seed.faults).toEqual([]);
    expect(report.assertionDetails.find((d) => d.message === ATTRITION_ASSERTIONS.maxDeadEnforcedGroup)?.status).toBe(
      "PASS",
    );
  });
});

describe("attrition and the chaos window", () => {
  it("stops at the cutoff: no new reboot after it, and the processes under way come back", async () => {
    const rec = lifecycleRecorder(["chaos_ended"]);
    const report = await new SimulationBuilder()
      .networkFaults("none")
      .processes(5, () => new Idle("node"))
      .workloadFactory(() => sleeper(30_000))
      .chaosDuration(10_000)
      .enableChaos([Chaos.attrition({ ...base, maxDead: 3 }, "random")])
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setBaseSeed(40)
      .setIterations(50)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    let restartsAfter = 0;
    for (const seed of rec.seeds) {
      const cutoff = seed.events.find((e) => e.name === "chaos_ended")!.timeMs;
      expect(cutoff).toBe(10_000);
      for (const f of starts(seed.faults)) expect(f.timeMs).toBeLessThan(cutoff);
      restartsAfter += seed.faults.filter((f) => f.str("kind") === P.restart && f.timeMs > cutoff).length;
      // Everyone is back before the run ends (recovery <= 10 s, grace <= 5 s after a reboot before 10 s).
      expect(checkTimeline(seed.faults).open).toBe(0);
    }
    expect(restartsAfter).toBeGreaterThan(10);
  });
});

describe("swarm mode and the seed's record", () => {
  it("swarm draws 4 config-stream booleans per entry (maxDead, graceful, crash, wipe) and records them", async () => {
    const rec = lifecycleRecorder();
    const report = await new SimulationBuilder()
      .networkFaults("none")
      .processes(3, () => new Idle("node"))
      .workloadFactory(() => sleeper(20_000))
      .chaosDuration(15_000)
      .enableChaos([Chaos.attrition({ maxDead: 2, probGraceful: 1, probCrash: 2, probWipe: 3 }, "swarm")])
      .invariantFn("rec", (q) => rec.observe(q))
      .beforeIteration(rec.before)
      .setBaseSeed(5)
      .setIterations(200)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const masks = new Set<string>();
    report.seeds.forEach((seed, i) => {
      const [r] = seed.chaos.attrition as [AttritionChaosRecord];
      expect(r.mode).toBe("swarm");
      const m = r.swarmMask!;
      masks.add(JSON.stringify(m));
      expect(r.maxDead).toBe(m.maxDead ? 2 : 0);
      expect([r.probGraceful, r.probCrash, r.probWipe]).toEqual([m.graceful ? 1 : 0, m.crash ? 2 : 0, m.wipe ? 3 : 0]);
      const t = checkTimeline(rec.seeds[i]!.faults);
      const total = t.graceful + t.crash + t.wipe;
      if (!m.maxDead) expect(total).toBe(0);
      else expect(total).toBeGreaterThan(0);
      if (m.maxDead && !m.graceful) expect(t.graceful).toBe(0);
      if (m.maxDead && !m.wipe) expect(t.wipe).toBe(0);
      // All weights zeroed: always a plain crash.
      if (m.maxDead && !m.graceful && !m.crash && !m.wipe) expect(t.crash).toBe(total);
      if (m.maxDead && (m.graceful || m.wipe) && !m.crash) expect(t.crash).toBe(0);
    });
    expect(masks.size).toBe(16);
    const json = report.toJSON() as { seeds: { chaos: { attrition: unknown[] } }[] };
    expect(json.seeds[0]!.chaos.attrition).toHaveLength(1);
  });

  it("a failing seed's report shows the attrition it ran with", async () => {
    const report = await new SimulationBuilder()
      .networkFaults("none")
      .processes(2, () => new Idle("node"))
      .workloadFactory(() => ({
        name: "fails",
        async run(ctx) {
          await ctx.time.sleep(5_000);
          throw new Error("planted");
        },
      }))
      .chaosDuration(4_000)
      .enableChaos([Chaos.attrition({ ...base, maxDead: 1 }, "random")])
      .setDebugSeeds([8])
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(1);
    expect(report.toString()).toMatch(/attrition\[any\]=random maxDead=1 weights=1\/1\/1/);
    expect(report.toString()).toMatch(/reboots=\[graceful:\d+,crash:\d+,wipe:\d+,forceKills:\d+,ignored:\d+\]/);
  });
});

describe("builder validation", () => {
  const attempt = (configure: (b: SimulationBuilder) => SimulationBuilder): unknown => {
    try {
      configure(new SimulationBuilder().workloadFactory(() => sleeper(1))).build();
      return null;
    } catch (error) {
      return error;
    }
  };
  const message = (error: unknown): string => {
    expect(error).toBeInstanceOf(InvalidConfiguration);
    return (error as Error).message;
  };
  const procs = (b: SimulationBuilder) => b.processes(2, () => new Idle("acceptor")).tags({ role: ["x", "y"] });

  it("rejects bad values at the call", () => {
    const bad: [AttritionConfig, RegExp][] = [
      [{ ...base, maxDead: -1 }, /maxDead must be a whole number >= 0/],
      [{ ...base, maxDead: 1.5 }, /maxDead/],
      [{ ...base, probCrash: -1 }, /probCrash must be a finite weight >= 0/],
      [{ ...base, probWipe: Number.NaN }, /probWipe/],
      [{ ...base, recoveryDelayMs: [10, 5] }, /recoveryDelayMs must be/],
      [{ ...base, gracePeriodMs: -3 }, /gracePeriodMs must be/],
      [{ ...base, scope: "rack" as never }, /scope must be one of "process", "machine", "zone", "datacenter"/],
      [{ ...base, victims: { kind: "some" } as never }, /victims must be AttritionVictims.any\(\)/],
    ];
    for (const [config, pattern] of bad) expect(() => Chaos.attrition(config, "random")).toThrow(pattern);
    expect(() => Chaos.attrition(base, "sometimes" as never)).toThrow(InvalidConfiguration);
    expect(() => AttritionVictims.group("")).toThrow(InvalidConfiguration);
    expect(() => AttritionVictims.tagged("", "v")).toThrow(InvalidConfiguration);
    expect(() =>
      new SimulationBuilder().enableChaos([
        { surface: "attrition", mode: "random", config: { ...base, maxDead: -2 } } as never,
      ]),
    ).toThrow(/maxDead/);
  });

  it("rejects combinations at build time", () => {
    expect(message(attempt((b) => procs(b).enableChaos([Chaos.attrition(base, "random")])))).toMatch(
      /needs a chaos window: add .chaosDuration\(ms\)/,
    );
    expect(message(attempt((b) => b.chaosDuration(10).enableChaos([Chaos.attrition(base, "random")])))).toMatch(
      /there are none: add .processes/,
    );
    expect(
      message(
        attempt((b) =>
          procs(b)
            .chaosDuration(10)
            .enableChaos([Chaos.attrition({ ...base, scope: "zone" }, "random")]),
        ),
      ),
    ).toMatch(/scope "zone" needs failure domains: lay the processes out with .cluster/);
    expect(
      message(
        attempt((b) =>
          procs(b)
            .chaosDuration(10)
            .enableChaos([Chaos.attrition({ ...base, victims: AttritionVictims.group("proposer") }, "random")]),
        ),
      ),
    ).toMatch(/no process group is named 'proposer'; groups: 'acceptor'/);
    expect(
      message(
        attempt((b) =>
          procs(b)
            .chaosDuration(10)
            .enableChaos([Chaos.attrition({ ...base, victims: AttritionVictims.tagged("role", "z") }, "random")]),
        ),
      ),
    ).toMatch(/no process group has tag role=z/);
    const cluster = (b: SimulationBuilder) =>
      b.cluster(
        { datacenters: 1, zonesPerDatacenter: 2, machinesPerZone: 1, processesPerMachine: 1 },
        () => new Idle("node"),
      );
    expect(
      message(
        attempt((b) =>
          cluster(procs(b))
            .chaosDuration(10)
            .enableChaos([
              Chaos.attrition({ ...base, scope: "machine", victims: AttritionVictims.group("acceptor") }, "random"),
            ]),
        ),
      ),
    ).toMatch(/reboots domains of the cluster group 'node', and none of these victims is in it/);
    // Valid: domain scope over the cluster, tag and group victims that exist.
    expect(
      attempt((b) =>
        cluster(procs(b))
          .chaosDuration(10)
          .enableChaos([Chaos.attrition({ ...base, scope: "machine" }, "random")]),
      ),
    ).toBeNull();
    expect(
      attempt((b) =>
        cluster(procs(b))
          .chaosDuration(10)
          .enableChaos([Chaos.attrition({ ...base, victims: AttritionVictims.tagged("role", "y") }, "swarm")]),
      ),
    ).toBeNull();
  });
});
