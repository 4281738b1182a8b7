import { describe, expect, it } from "vitest";
import { topologySimulation } from "./simulation.ts";

describe("topology example", () => {
  it("the kv store across datacenters stays linearizable under machine, zone and datacenter outages", async () => {
    const report = await topologySimulation().setBaseSeed(1).setIterations(30).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    for (const message of [
      "client history is linearizable",
      "a machine was lost and recovered",
      "a zone was lost and recovered",
      "a datacenter was lost and recovered",
      "a read was answered while a zone or datacenter was down",
    ]) {
      expect(status[message], message).toBe("PASS");
    }
  });

  it("replays seeds to identical trace hashes; different seeds differ", async () => {
    const a = await topologySimulation().setBaseSeed(3).setIterations(6).run();
    const b = await topologySimulation().setBaseSeed(3).setIterations(6).run();
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(6);
  });
});
