/**
 * The simulation: three replicas and the clients' workload, under network chaos and attrition
 * (one replica at a time shut down or crashed and restarted from its log) during a chaos window.
 */
import {
  AttritionVictims,
  Chaos,
  SimulationBuilder,
  type AttritionConfig,
  type Process,
  type SimContext,
} from "@moonpool/sim";
import type { KvClientOptions } from "./client.ts";
import { Replica } from "./replica.ts";
import { KvWorkload } from "./workload.ts";

export const REPLICA_COUNT = 3;
export const CHAOS_MS = 4_000;

/** At most one replica down at a time, so a majority can answer once the network heals. */
export const KV_ATTRITION: AttritionConfig = Object.freeze({
  maxDead: 1,
  probGraceful: 1,
  probCrash: 2,
  probWipe: 0,
  recoveryDelayMs: [200, 1_500] as const,
  gracePeriodMs: [50, 300] as const,
  victims: AttritionVictims.group("replica"),
});

class SimulatedReplica implements Process {
  readonly name = "replica";
  run(ctx: SimContext): Promise<void> {
    return new Replica().run(ctx);
  }
}

export function kvSimulation(options: KvClientOptions = {}): SimulationBuilder {
  return new SimulationBuilder()
    .processes(REPLICA_COUNT, () => new SimulatedReplica())
    .workloadFactory(() => new KvWorkload(options))
    .chaosDuration(CHAOS_MS)
    .enableChaos([Chaos.network("random"), Chaos.attrition(KV_ATTRITION, "random")]);
}
