/**
 * A custom fault injector (`builder.faultFactory(...)`): during the chaos window it cuts one node
 * off from everyone (the other nodes and the clients) for a while, again and again. That is the
 * failure a leader-based protocol fears most: the leader vanishes, a new one must be elected with
 * the remaining majority, and the old one comes back with a stale ballot.
 *
 * It uses only what `FaultContext` offers today (partitions). When process reboots land
 * (`FaultContext.reboot`), killing the isolated node instead of partitioning it is a two-line change.
 */
import type { FaultContext, FaultInjector } from "@moonpool/sim";

/** Time between two isolations. */
export const ISOLATION_GAP_MS: readonly [number, number] = [200, 1_000];
/** How long one isolation lasts (the chaos cutoff heals it earlier). */
export const ISOLATION_LENGTH_MS: readonly [number, number] = [150, 1_200];

export class IsolateNodeInjector implements FaultInjector {
  readonly name = "isolate-node";

  constructor(private readonly group: string) {}

  async inject(ctx: FaultContext): Promise<void> {
    const nodes = ctx.topology.ipsInGroup(this.group);
    const everyone = [...nodes, ...ctx.topology.workloadIps()];
    // Ends with an AbortError from sleep at the chaos cutoff (the expected way out).
    for (;;) {
      await ctx.time.sleep(ctx.random.randomRange(ISOLATION_GAP_MS[0], ISOLATION_GAP_MS[1]));
      const victim = nodes[ctx.random.randomRange(0, nodes.length)]!;
      const durationMs = ctx.random.randomRange(ISOLATION_LENGTH_MS[0], ISOLATION_LENGTH_MS[1]);
      for (const other of everyone) if (other !== victim) ctx.partitionBetween(victim, other, durationMs);
      ctx.trace.info("node_isolated", { ip: victim, durationMs });
    }
  }
}
