/**
 * The simulation: three election nodes, the observer workload and the split-brain invariant.
 * Iteration settings (how many seeds, which ones) are left to the caller: `run.ts` runs until
 * coverage is stable, the tests pin their seeds.
 */
import { SimulationBuilder, type Process, type SimContext } from "@moonpool/sim";
import { ElectionNode, ELECTION_PORT, type ElectionOptions } from "./node.ts";
import { SplitBrainInvariant } from "./invariants.ts";
import { ElectionObserver } from "./workload.ts";

export const NODE_COUNT = 3;

/**
 * Adapts the production node to the simulator: a fresh node per boot, whose peers are the other
 * members of the "node" group. In production the peer list would come from configuration.
 */
class SimulatedNode implements Process {
  readonly name = "node";
  constructor(private readonly options: ElectionOptions) {}

  run(ctx: SimContext): Promise<void> {
    const peers = ctx.topology
      .ipsInGroup("node")
      .filter((ip) => ip !== ctx.myIp)
      .map((ip) => `${ip}:${ELECTION_PORT}`);
    return new ElectionNode(peers, this.options).run(ctx);
  }
}

export function leaderElectionSimulation(options: ElectionOptions = {}): SimulationBuilder {
  return new SimulationBuilder()
    .processes(NODE_COUNT, () => new SimulatedNode(options))
    .workloadFactory(() => new ElectionObserver())
    .invariant(new SplitBrainInvariant());
}
