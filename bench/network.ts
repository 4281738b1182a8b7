/**
 * Network throughput with and without chaos.
 *
 * A request/response echo between two processes: the client process sends a 64-byte request on
 * one connection and waits for its echo (with a timeout; on any error it reconnects), until
 * ROUND_TRIPS round trips are done or SIM_BUDGET_MS of simulated time passed. A message is one
 * request or one response that arrived: two per round trip.
 *
 * - baselineMsgsPerSec: the baseline network (no Chaos entry).
 * - swarmMsgsPerSec: `Chaos.network("swarm")` for the whole run (no chaos window): the cost of
 *   the fault machinery plus the work faults cause (timeouts, reconnects, held bytes).
 * Both over the same seeds, in interleaved rounds in this process; medians of the rounds.
 */
import { IoError, isAbortError, TimeoutError, type Connection } from "../packages/core/src/index.ts";
import { Chaos, SimulationBuilder, type Process, type SimContext, type Workload } from "../packages/sim/src/index.ts";

const ROUND_TRIPS = 2_500;
const SIM_BUDGET_MS = 600_000;
const REQUEST_BYTES = 64;
const TIMEOUT_MS = 1_000;
/**
 * Many seeds, because a seed's fault mix varies a lot: buggify activates partial I/O (which
 * splits messages into more events) on about half the seeds, in either mode. With few seeds the
 * ratio would measure which seeds happened to activate it.
 */
const SEEDS = Array.from({ length: 24 }, (_, i) => i + 1);
const ROUNDS = 5;
const PORT = 9100;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function expected(error: unknown): boolean {
  return error instanceof IoError || error instanceof TimeoutError || isAbortError(error);
}

class EchoServer implements Process {
  readonly name = "server";
  async run(ctx: SimContext): Promise<void> {
    const listener = await ctx.network.bind(`${ctx.myIp}:${PORT}`);
    for (;;) {
      const conn = await listener.accept();
      ctx.task.spawn("echo", async () => {
        try {
          for (let chunk = await conn.read(); chunk !== null; chunk = await conn.read()) await conn.write(chunk);
        } catch (error) {
          if (!expected(error)) throw error;
        }
      });
    }
  }
}

/** Reads one whole response (bytes may come split or, after a reconnect, never). */
async function readResponse(conn: Connection): Promise<void> {
  let got = 0;
  while (got < REQUEST_BYTES) {
    const chunk = await conn.read();
    if (chunk === null) throw new IoError("EPROTO", "echo closed");
    got += chunk.length;
  }
}

class EchoClient implements Process {
  readonly name = "client";
  async run(ctx: SimContext): Promise<void> {
    const addr = `${ctx.topology.ipsInGroup("server")[0]}:${PORT}`;
    const request = new Uint8Array(REQUEST_BYTES);
    let roundTrips = 0;
    let messages = 0;
    let conn: Connection | null = null;
    while (roundTrips < ROUND_TRIPS && ctx.time.now() < SIM_BUDGET_MS) {
      try {
        conn ??= await ctx.time.timeout(TIMEOUT_MS, ctx.network.connect(addr));
        await conn.write(request);
        await ctx.time.timeout(TIMEOUT_MS, readResponse(conn));
        roundTrips++;
        messages += 2;
      } catch (error) {
        if (!expected(error)) throw error;
        // A lost exchange: start over on a fresh connection (the old one may hold a late echo).
        void conn?.close().catch(() => undefined);
        conn = null;
      }
    }
    ctx.state.publish("messages", messages);
  }
}

async function round(chaos: boolean): Promise<number> {
  let messages = 0;
  const builder = new SimulationBuilder()
    .processes(1, () => new EchoServer())
    .processes(1, () => new EchoClient())
    .setDebugSeeds(SEEDS)
    .setIterations(SEEDS.length)
    .runTimeBudget(SIM_BUDGET_MS * 2);
  if (chaos) builder.enableChaos([Chaos.network("swarm")]);
  const report = await builder
    .workloadFactory(
      (): Workload => ({
        // Ends the seed once the client is done (its count is on the state board).
        name: "counter",
        async run(ctx: SimContext) {
          while (!ctx.state.contains("messages")) await ctx.time.sleep(1_000);
          messages += ctx.state.get<number>("messages")!;
        },
      }),
    )
    .run();
  if (report.failedRuns !== 0) throw new Error(`network bench seed failed:\n${report.toString()}`);
  const wallMs = report.seeds.reduce((sum, s) => sum + s.wallTimeMs, 0);
  return messages / (wallMs / 1000);
}

export async function benchNetwork(): Promise<Record<string, unknown>> {
  await round(false); // warm-up (JIT)
  await round(true);
  const baseline: number[] = [];
  const swarm: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    baseline.push(await round(false));
    swarm.push(await round(true));
  }
  const baselineMsgsPerSec = median(baseline);
  const swarmMsgsPerSec = median(swarm);
  console.error(
    `network: baseline ${Math.round(baselineMsgsPerSec).toLocaleString("en")} msgs/s, swarm ${Math.round(swarmMsgsPerSec).toLocaleString("en")} msgs/s ` +
      `(${SEEDS.length} seeds × up to ${ROUND_TRIPS.toLocaleString("en")} round trips, median of ${ROUNDS} interleaved rounds)`,
  );
  return {
    baselineMsgsPerSec: Math.round(baselineMsgsPerSec),
    swarmMsgsPerSec: Math.round(swarmMsgsPerSec),
    ratioSwarmToBaseline: Number((swarmMsgsPerSec / baselineMsgsPerSec).toFixed(3)),
  };
}
