/**
 * Custom fault injectors (`builder.faultFactory(...)`) for the Paxos simulation. Each runs inside
 * the chaos window only, and ends with an AbortError from its sleep at the chaos cutoff (the
 * expected way out).
 *
 * - `IsolateNodeInjector`: cuts one node off from everyone (the other nodes and the clients) for a
 *   while, again and again. That is the failure a leader-based protocol fears most: the leader
 *   vanishes, a new one must be elected with the remaining majority, and the old one comes back
 *   with a stale ballot.
 * - `CrashRestartInjector`: crash-restart cycles, quick and frequent. Built-in attrition
 *   (`Chaos.attrition`, in the campaign too) acts every 1-5 s, which in a 3 s chaos window is
 *   one reboot in about half the seeds (two at most, rarely) even before its swarm mask switches
 *   it off: too rare for the bugs that need a crash at a precise moment (between a
 *   promise and its write, or while a proposer holds a ballot that acceptors still honour). This
 *   injector adds a reboot every 200-900 ms, restarted after 50-600 ms, in three seeds of four
 *   (about three reboots per campaign seed). Like attrition with `maxDead: 1`, it never takes a
 *   second node down: a majority stays up.
 * - `PaxosFaultInjector`: runs several injectors side by side (the builder takes one factory).
 */
import { isAbortError } from "@moonpool/core";
import type { FaultContext, FaultInjector, RebootKind } from "@moonpool/sim";

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
    for (;;) {
      await ctx.time.sleep(ctx.random.randomRange(ISOLATION_GAP_MS[0], ISOLATION_GAP_MS[1]));
      const victim = nodes[ctx.random.randomRange(0, nodes.length)]!;
      const durationMs = ctx.random.randomRange(ISOLATION_LENGTH_MS[0], ISOLATION_LENGTH_MS[1]);
      for (const other of everyone) if (other !== victim) ctx.partitionBetween(victim, other, durationMs);
      ctx.trace.info("node_isolated", { ip: victim, durationMs });
    }
  }
}

/** Time between two crash-restart attempts. */
export const CRASH_GAP_MS: readonly [number, number] = [200, 900];
/** Time from a crash (or the end of a graceful shutdown) to the restart. */
export const CRASH_RECOVERY_MS: readonly [number, number] = [50, 600];
/** Grace period of the graceful reboots (one in four). */
export const CRASH_GRACE_MS: readonly [number, number] = [0, 300];

export class CrashRestartInjector implements FaultInjector {
  readonly name = "crash-restart";

  constructor(private readonly group: string) {}

  async inject(ctx: FaultContext): Promise<void> {
    const nodes = ctx.topology.ipsInGroup(this.group);
    // Swarmed like the built-in chaos: one seed in four runs without these reboots, so that deep
    // progress (many slots decided by one node) is reached too; reboots suppress it.
    if (ctx.random.randomRange(0, 4) === 0) {
      ctx.trace.info("crash_restart_off", {});
      return;
    }
    for (;;) {
      await ctx.time.sleep(ctx.random.randomRange(CRASH_GAP_MS[0], CRASH_GAP_MS[1]));
      // Two draws per step whatever happens next, so recipes keep their meaning.
      const victim = nodes[ctx.random.randomRange(0, nodes.length)]!;
      const kind: RebootKind = ctx.random.randomRange(0, 4) === 0 ? "graceful" : "crash";
      // At most one node down at a time, whoever took it down (attrition counts the same way).
      if (ctx.deadCount() > 0) continue;
      if (ctx.rebootWithDelays(victim, kind, CRASH_RECOVERY_MS, CRASH_GRACE_MS))
        ctx.trace.info("node_rebooted", { ip: victim, kind });
    }
  }
}

/** Runs `injectors` concurrently in one fault context; settles when all of them have. */
export class PaxosFaultInjector implements FaultInjector {
  readonly name: string;
  private readonly injectors: readonly FaultInjector[];

  constructor(injectors: readonly FaultInjector[]) {
    this.injectors = injectors;
    this.name = injectors.map((i) => i.name).join("+");
  }

  async inject(ctx: FaultContext): Promise<void> {
    const results = await Promise.allSettled(this.injectors.map((injector) => injector.inject(ctx)));
    // The cutoff's AbortError is the normal way out; anything else is a bug in an injector.
    const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected" && !isAbortError(r.reason));
    if (failure !== undefined) throw failure.reason;
    const aborted = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (aborted !== undefined) throw aborted.reason;
  }
}
