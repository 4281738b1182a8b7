/**
 * The simulation: three membership nodes, one of them cut off from the others for a while in
 * the chaos window, a workload that keeps the run going through the recovery tail, and the
 * liveness property "every node sees every peer up within 2 s of the chaos window's end".
 */
import {
  SimulationBuilder,
  TraceCursor,
  type FaultContext,
  type FaultInjector,
  type LivenessProperty,
  type Process,
  type SimContext,
  type TraceQuery,
  type Workload,
} from "@moonpool/sim";
import { MembershipNode, MEMBERSHIP_PORT, SUSPECT_AFTER_MS, type MembershipOptions } from "./node.ts";

export const NODE_COUNT = 3;
export const CHAOS_MS = 2_000;
/** The recovery tail the workload leaves after the chaos window. */
export const RECOVERY_MS = 3_000;
export const CONVERGE_WITHIN_MS = 2_000;

class SimulatedNode implements Process {
  readonly name = "node";
  constructor(private readonly options: MembershipOptions) {}

  run(ctx: SimContext): Promise<void> {
    const peers = ctx.topology
      .ipsInGroup("node")
      .filter((ip) => ip !== ctx.myIp)
      .map((ip) => `${ip}:${MEMBERSHIP_PORT}`);
    return new MembershipNode(peers, this.options).run(ctx);
  }
}

/** Cuts one node off from the others for longer than the suspicion timeout, once per seed. */
class PartitionOneNode implements FaultInjector {
  readonly name = "partition-one-node";

  async inject(ctx: FaultContext): Promise<void> {
    const nodes = ctx.topology.ipsInGroup("node");
    await ctx.time.sleep(ctx.random.randomRange(100, 500));
    const victim = nodes[ctx.random.randomRange(0, nodes.length)]!;
    const durationMs = ctx.random.randomRange(SUSPECT_AFTER_MS * 2, CHAOS_MS - 600);
    for (const other of nodes) if (other !== victim) ctx.partitionBetween(victim, other, durationMs);
    ctx.trace.info("node_partitioned", { ip: victim, durationMs });
  }
}

/** Keeps the seed running through the chaos window and the recovery tail; the liveness property judges. */
class Tail implements Workload {
  readonly name = "tail";
  async run(ctx: SimContext): Promise<void> {
    await ctx.time.sleep(CHAOS_MS + RECOVERY_MS);
  }
}

/** Every node's latest `view_changed` says it sees all its peers up. */
export class EveryoneRejoins implements LivenessProperty {
  readonly name = "every node sees every peer up";
  readonly withinMs = CONVERGE_WITHIN_MS;
  private readonly cursor = new TraceCursor();
  private readonly missing = new Map<string, number>();

  converged(query: TraceQuery): boolean {
    for (const event of query.since("view_changed", this.cursor))
      this.missing.set(event.source, (event.num("peers") ?? 0) - (event.num("up") ?? 0));
    return this.missing.size === NODE_COUNT && [...this.missing.values()].every((n) => n === 0);
  }

  reset(): void {
    this.cursor.reset();
    this.missing.clear();
  }
}

export function rejoinSimulation(options: MembershipOptions = {}): SimulationBuilder {
  return new SimulationBuilder()
    .networkFaults("none")
    .processes(NODE_COUNT, () => new SimulatedNode(options))
    .workloadFactory(() => new Tail())
    .chaosDuration(CHAOS_MS)
    .faultFactory(() => new PartitionOneNode())
    .liveness(new EveryoneRejoins());
}
