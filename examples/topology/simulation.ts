/**
 * The kv store (examples/kv) laid out across failure domains: six replicas, one per zone, two
 * zones in each of three datacenters. Links cost more the farther apart their ends are
 * (`.linkLatency()`), every request carries a timeout (the kv protocol's), and attrition takes
 * out whole domains at once: a machine, a zone or a datacenter. A majority is four replicas, so
 * any one datacenter may be down and the store still answers.
 */
import { Replica } from "@moonpool/example-kv/replica.ts";
import { KvWorkload } from "@moonpool/example-kv/workload.ts";
import {
  AttritionVictims,
  Chaos,
  SimulationBuilder,
  type AttritionConfig,
  type Process,
  type SimContext,
} from "@moonpool/sim";
import { FailureDomainInvariant } from "./invariants.ts";

export const CHAOS_MS = 4_000;
export const LAYOUT = { datacenters: 3, zonesPerDatacenter: 2, machinesPerZone: 1, processesPerMachine: 1 } as const;

/** One attrition pool per domain kind (overlapping pools each keep their own budget). */
function domainAttrition(
  scope: "machine" | "zone" | "datacenter",
  maxDead: number,
  victims: AttritionVictims,
): AttritionConfig {
  return {
    maxDead,
    probGraceful: 1,
    probCrash: 2,
    probWipe: 0,
    recoveryDelayMs: [300, 1_500],
    gracePeriodMs: [50, 300],
    scope,
    victims,
  };
}

class SimulatedReplica implements Process {
  readonly name = "replica";
  run(ctx: SimContext): Promise<void> {
    const where = ctx.topology.myLocality;
    ctx.trace.info("replica_placed", { datacenter: where?.datacenter ?? "?", zone: where?.zone ?? "?" });
    return new Replica().run(ctx);
  }
}

export function topologySimulation(): SimulationBuilder {
  return new SimulationBuilder()
    .cluster(LAYOUT, () => new SimulatedReplica())
    .tags({ tier: ["storage"] })
    .linkLatency()
    .workloadFactory(() => new KvWorkload())
    .invariant(new FailureDomainInvariant())
    .chaosDuration(CHAOS_MS)
    .enableChaos([
      Chaos.network("random"),
      Chaos.attrition(domainAttrition("datacenter", 2, AttritionVictims.group("replica")), "random"),
      Chaos.attrition(domainAttrition("zone", 1, AttritionVictims.tagged("tier", "storage")), "random"),
      Chaos.attrition(domainAttrition("machine", 1, AttritionVictims.any()), "random"),
    ]);
}
