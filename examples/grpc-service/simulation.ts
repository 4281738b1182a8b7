/**
 * The simulation: one `@grpc/grpc-js` server process and two client processes, under network chaos
 * (latency, partitions, resets) and process reboots (crashes and graceful restarts) during a chaos
 * window. `nodeRuntime()` gives grpc-js virtual timers, clock and randomness.
 */
import {
  AttritionVictims,
  Chaos,
  SimulationBuilder,
  WorkloadCount,
  type AttritionConfig,
  type Process,
  type SimContext,
} from "@moonpool/sim";
import { bind, createKvServer, type ServiceOptions } from "./service.ts";
import { KvClientWorkload, SERVICE_PORT } from "./workload.ts";

export const CHAOS_MS = 3_000;

export const GRPC_ATTRITION: AttritionConfig = Object.freeze({
  maxDead: 1,
  probGraceful: 1,
  probCrash: 2,
  probWipe: 0,
  recoveryDelayMs: [200, 1_000] as const,
  gracePeriodMs: [50, 300] as const,
  victims: AttritionVictims.group("kv"),
});

class KvProcess implements Process {
  readonly name = "kv";
  constructor(private readonly options: ServiceOptions) {}

  async run(ctx: SimContext): Promise<void> {
    const server = createKvServer(this.options);
    await bind(server, SERVICE_PORT);
    await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
    server.forceShutdown();
  }
}

export function grpcServiceSimulation(options: ServiceOptions = {}, chaos?: readonly Chaos[]): SimulationBuilder {
  return new SimulationBuilder()
    .nodeRuntime()
    .processes(1, () => new KvProcess(options))
    .workloads(WorkloadCount.fixed(2), () => new KvClientWorkload())
    .chaosDuration(CHAOS_MS)
    .enableChaos(chaos ?? [Chaos.network("swarm"), Chaos.attrition(GRPC_ATTRITION, "random")]);
}
