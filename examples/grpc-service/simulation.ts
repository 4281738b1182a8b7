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
  type NetworkConfig,
  type Process,
  type SimContext,
} from "@moonpool/sim";
import { NETWORK_BASELINE } from "@moonpool/sim/tuning";
import { bind, createKvServer, type ServiceOptions } from "./service.ts";
import { KvClientWorkload, SERVICE_PORT } from "./workload.ts";

export const CHAOS_MS = 3_000;

/**
 * The baseline network (latency, connect failures, partial I/O, rare closes, clock drift) with clogs
 * and partitions, and without bit flips: HTTP/2 frames carry no checksum (TCP's would catch a flip),
 * and a flipped header makes grpc-js 1.14.7 call `stream.respond()` on a destroyed stream, which
 * throws out of its 'stream' listener (seed 3415539315175379 under `Chaos.network("swarm")`).
 */
export const GRPC_NETWORK: NetworkConfig = Object.freeze({
  ...NETWORK_BASELINE,
  bitFlipProbability: 0,
  clogProbability: 0.1,
  partitionProbability: 0.05,
});

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
    .networkFaults(GRPC_NETWORK)
    .enableChaos(chaos ?? [Chaos.attrition(GRPC_ATTRITION, "random")]);
}
