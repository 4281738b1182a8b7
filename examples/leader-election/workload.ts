/**
 * The driver of one seed: a client that keeps asking every node who leads, for a fixed stretch of
 * simulated time, then checks liveness. Safety (one leader per term) is the invariant's job; this
 * workload checks what an invariant cannot: that something good eventually happened.
 */
import { assertAlways, Transport, type SimContext, type Workload } from "@moonpool/sim";
import { ask, ELECTION_PORT, ElectionService } from "./node.ts";

/** Simulated time each seed runs (many election timeouts, and room for several stalls). */
export const OBSERVATION_MS = 15_000;
const POLL_INTERVAL_MS = 200;

export class ElectionObserver implements Workload {
  readonly name = "observer";

  async run(ctx: SimContext): Promise<void> {
    const transport = new Transport(ctx);
    const nodes = ctx.topology
      .ipsInGroup("node")
      .map((ip) => transport.stub(ElectionService, `${ip}:${ELECTION_PORT}`));
    let leaderSeen = false;
    let highestTerm = 0;
    const end = ctx.time.now() + OBSERVATION_MS;
    // Its size, for the shrinker: the polls fit in the observation time, a shrunk run may do fewer.
    const maxPolls = ctx.size("polls", Math.ceil(OBSERVATION_MS / POLL_INTERVAL_MS));
    for (let polls = 0; polls < maxPolls && ctx.time.now() < end; polls++) {
      await ctx.time.sleep(POLL_INTERVAL_MS);
      for (const node of nodes) {
        // No answer (a stalled node) is normal here; the next poll asks again.
        const status = await ask((options) => node.status.tryGetReply(null, options));
        if (status === null) continue;
        highestTerm = Math.max(highestTerm, status.term);
        if (status.role === "leader") leaderSeen = true;
      }
    }
    await transport.close();
    // Liveness: with randomized timeouts some candidate must win, whatever the stalls.
    assertAlways(leaderSeen, "a leader is elected", { highestTerm, observedMs: OBSERVATION_MS });
  }
}
