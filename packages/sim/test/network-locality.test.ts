/**
 * `.cluster(...)` localities in `ctx.topology`, and `.linkLatency(...)`: latency grows with
 * distance between the cluster's processes.
 */
import { describe, expect, it } from "vitest";
import { InvalidConfiguration } from "@moonpool/core";
import { DEFAULT_LINK_LATENCY, SimulationBuilder, type Locality, type Process, type SimContext } from "../src/index.ts";
import { compareDomainIds } from "../src/runner/locality.ts";
import { ECHO_PORT, EchoServer } from "./fixtures/chaos-echo.ts";

interface Seen {
  ip: string;
  locality: Locality | undefined;
  peersOnMyMachine: string[];
  dcSize: number;
  zoneSize: number;
  machines: string[];
  zones: string[];
  datacenters: string[];
}

class Reporter implements Process {
  readonly name = "node";
  constructor(private readonly seen: Seen[]) {}
  async run(ctx: SimContext): Promise<void> {
    const t = ctx.topology;
    const loc = t.myLocality;
    this.seen.push({
      ip: ctx.myIp,
      locality: loc,
      peersOnMyMachine: t.peersOnMyMachine(),
      dcSize: loc === undefined ? 0 : t.ipsInDomain("datacenter", loc.datacenter).length,
      zoneSize: loc === undefined ? 0 : t.ipsInDomain("zone", loc.zone).length,
      machines: t.machines(),
      zones: t.zones(),
      datacenters: t.datacenters(),
    });
  }
}

const idle = { name: "idle", run: async (ctx: SimContext) => ctx.time.sleep(10) };

describe("cluster locality", () => {
  it("lays processes out contiguously (dc / zone / machine) and answers domain queries", async () => {
    const seen: Seen[] = [];
    await new SimulationBuilder()
      .networkFaults("none")
      .cluster(
        { datacenters: 2, zonesPerDatacenter: 1, machinesPerZone: 2, processesPerMachine: 2 },
        () => new Reporter(seen),
      )
      .processes(1, () => ({ name: "outsider", run: async () => {} }))
      .workloadFactory(() => idle)
      .setBaseSeed(1)
      .setIterations(1)
      .run();
    expect(seen).toHaveLength(8);
    const first = seen.find((s) => s.ip === "10.0.1.1")!;
    expect(first.locality).toEqual({ datacenter: "dc1", zone: "dc1-z1", machine: "dc1-z1-m1" });
    expect(first.peersOnMyMachine).toEqual(["10.0.1.2"]);
    expect(seen.find((s) => s.ip === "10.0.1.8")!.locality).toEqual({
      datacenter: "dc2",
      zone: "dc2-z1",
      machine: "dc2-z1-m2",
    });
    for (const s of seen) {
      expect(s.dcSize).toBe(4);
      expect(s.zoneSize).toBe(4);
      expect(s.peersOnMyMachine).toHaveLength(1);
      expect(s.machines).toEqual(["dc1-z1-m1", "dc1-z1-m2", "dc2-z1-m1", "dc2-z1-m2"]);
      expect(s.zones).toEqual(["dc1-z1", "dc2-z1"]);
      expect(s.datacenters).toEqual(["dc1", "dc2"]);
    }
  });

  it("draws ranged counts per seed (deterministically), and sorts ids by their numbers", async () => {
    const sizes: number[] = [];
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const seen: Seen[] = [];
      const run = () =>
        new SimulationBuilder()
          .networkFaults("none")
          .cluster(
            { datacenters: [1, 3], zonesPerDatacenter: 1, machinesPerZone: [1, 2], processesPerMachine: 2 },
            () => new Reporter(seen),
          )
          .workloadFactory(() => idle)
          .setDebugSeeds([seed])
          .setIterations(1)
          .run();
      await run();
      const n = seen.length;
      seen.length = 0;
      await run();
      expect(seen.length).toBe(n);
      expect([2, 4, 6, 8, 12]).toContain(n);
      sizes.push(n);
    }
    expect(new Set(sizes).size).toBeGreaterThan(1);
    expect(["dc10", "dc2", "dc1"].sort(compareDomainIds)).toEqual(["dc1", "dc2", "dc10"]);
    expect(["dc1-z1-m10", "dc1-z1-m9"].sort(compareDomainIds)).toEqual(["dc1-z1-m9", "dc1-z1-m10"]);
  });

  it("validates the layout", () => {
    const b = () => new SimulationBuilder();
    const node = () => ({ name: "node", run: async () => {} });
    expect(() =>
      b().cluster({ datacenters: 0, zonesPerDatacenter: 1, machinesPerZone: 1, processesPerMachine: 1 }, node),
    ).toThrow(InvalidConfiguration);
    expect(() =>
      b().cluster({ datacenters: [3, 2], zonesPerDatacenter: 1, machinesPerZone: 1, processesPerMachine: 1 }, node),
    ).toThrow(/1 <= min <= max/);
    expect(() =>
      b().cluster({ datacenters: 10, zonesPerDatacenter: 10, machinesPerZone: 3, processesPerMachine: 1 }, node),
    ).toThrow(/at most 254/);
    const one = { datacenters: 1, zonesPerDatacenter: 1, machinesPerZone: 1, processesPerMachine: 1 };
    expect(() =>
      b()
        .cluster(one, node)
        .cluster(one, () => ({ name: "other", run: async () => {} })),
    ).toThrow(/already registered/);
    expect(() =>
      b()
        .linkLatency()
        .workloadFactory(() => idle)
        .build(),
    ).toThrow(/needs localities/);
    expect(() => b().linkLatency({ ...DEFAULT_LINK_LATENCY, sameZoneMs: [0, 0.001] })).toThrow(
      /must grow with distance/,
    );
    expect(() => b().linkLatency({ ...DEFAULT_LINK_LATENCY, crossDatacenterMs: [5, 1] })).toThrow(/minMs <= maxMs/);
  });
});

describe("link latency", () => {
  /** Process 0 pings one peer per distance and publishes the mean round trip of each. */
  class Pinger implements Process {
    readonly name = "node";
    async run(ctx: SimContext): Promise<void> {
      const echo = new EchoServer();
      const serving = echo.run(ctx);
      if (ctx.clientId !== 0) return serving;
      await ctx.time.sleep(50); // every peer listens
      const t = ctx.topology;
      const me = t.myLocality!;
      const peers = t.allProcessIps().filter((ip) => ip !== ctx.myIp);
      const pick = (test: (l: Locality) => boolean) => peers.find((ip) => test(t.localityFor(ip)!))!;
      const targets = {
        sameMachine: pick((l) => l.machine === me.machine),
        sameZone: pick((l) => l.zone === me.zone && l.machine !== me.machine),
        sameDatacenter: pick((l) => l.datacenter === me.datacenter && l.zone !== me.zone),
        crossDatacenter: pick((l) => l.datacenter !== me.datacenter),
      };
      const means: Record<string, number> = {};
      for (const [distance, ip] of Object.entries(targets)) {
        const conn = await ctx.network.connect(`${ip}:${ECHO_PORT}`);
        let total = 0;
        for (let i = 0; i < 20; i++) {
          const start = ctx.time.now();
          await conn.write(Uint8Array.of(i));
          await conn.read();
          total += ctx.time.now() - start;
        }
        await conn.close();
        means[distance] = total / 20;
      }
      ctx.state.publish("means", means);
      return serving;
    }
  }

  async function roundTrips(withLinkLatency: boolean): Promise<Record<string, number>> {
    let means: Record<string, number> | undefined;
    let builder = new SimulationBuilder()
      .networkFaults("none")
      .cluster(
        { datacenters: 2, zonesPerDatacenter: 2, machinesPerZone: 2, processesPerMachine: 2 },
        () => new Pinger(),
      );
    if (withLinkLatency) builder = builder.linkLatency();
    const report = await builder
      .workloadFactory(() => ({
        name: "waiter",
        async run(ctx: SimContext) {
          while (!ctx.state.contains("means")) await ctx.time.sleep(10);
          means = ctx.state.get("means");
        },
      }))
      .setBaseSeed(9)
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    return means!;
  }

  it("grows with distance: same machine < same zone < same datacenter < across datacenters", async () => {
    const m = await roundTrips(true);
    expect(m.sameMachine).toBeLessThan(m.sameZone!);
    expect(m.sameZone).toBeLessThan(m.sameDatacenter!);
    expect(m.sameDatacenter).toBeLessThan(m.crossDatacenter!);
    // Two crossings of a 10–60 ms link per round trip, on top of the network's own latency.
    expect(m.crossDatacenter).toBeGreaterThan(20);
    expect(m.crossDatacenter).toBeLessThan(125);
  });

  it("without linkLatency the distance does not matter", async () => {
    const m = await roundTrips(false);
    for (const v of Object.values(m)) expect(v).toBeLessThan(1.5); // two 0.1–0.6 ms writes
  });
});
