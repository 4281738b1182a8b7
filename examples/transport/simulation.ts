/**
 * The append-log simulation: one server, two or three clients, the network swarmed inside a
 * chaos window, the operation alphabet swarmed, and the chain-replay invariant.
 */
import { Chaos, SimulationBuilder, WorkloadCount, type Process, type SimContext } from "@moonpool/sim";
import { AppendLogServer, type AppendLogBug } from "./append-log.ts";
import { ChainReplayInvariant } from "./invariants.ts";
import { AppendLogClient } from "./workload.ts";

export const CHAOS_MS = 4_000;
/** Clients issue operations this long; the liveness check follows the heal. */
export const ACTIVE_MS = 4_000;

class SimulatedServer implements Process {
  readonly name = "server";
  constructor(private readonly bug: AppendLogBug | undefined) {}

  run(ctx: SimContext): Promise<void> {
    return new AppendLogServer(this.bug === undefined ? {} : { bug: this.bug }).run(ctx);
  }
}

export function transportSimulation(options: { readonly bug?: AppendLogBug } = {}): SimulationBuilder {
  return new SimulationBuilder()
    .processes(1, () => new SimulatedServer(options.bug))
    .workloads(WorkloadCount.random(2, 4), () => new AppendLogClient({ activeMs: ACTIVE_MS, chaosMs: CHAOS_MS }))
    .invariant(new ChainReplayInvariant())
    .enableChaos([Chaos.network("swarm")])
    .chaosDuration(CHAOS_MS)
    .swarmOperations();
}
