/** What `moonpool init` writes: a config and one small simulation that passes as written. */

// \`.mts\`: an ES module whatever the package's \`type\` (npm 11's \`npm init -y\` writes "commonjs",
// with which a \`.ts\` file would load as CommonJS and fail).
export const INIT_CONFIG_FILE = "moonpool.config.mts";
export const INIT_SIMULATION_FILE = "simulations/ping-pong.sim.mts";
export const INIT_SCRIPT_NAME = "simulate";
export const INIT_SCRIPT = "moonpool run";

export const INIT_CONFIG = `// Configuration of the \`moonpool\` command: https://www.npmjs.com/package/@moonpool/sim
import { defineConfig } from "@moonpool/sim";

export default defineConfig({
  include: ["simulations/**/*.sim.{ts,mts,js,mjs}"],
  reportDir: "moonpool-reports",
});
`;

export const INIT_SIMULATION = `/**
 * Two processes talking over the simulated network: a pinger sends numbered pings, a ponger
 * echoes them back. The network misbehaves on purpose (delays, failed connects, closed
 * connections, flipped bits), so the pinger checksums its pings and reconnects; an invariant
 * checks every answer after every step. Run it with \`npx moonpool run\`; replay a failing seed
 * with the command its report prints.
 */
import {
  FramedConnection,
  IoError,
  SimulationBuilder,
  TimeoutError,
  TraceCursor,
  assertAlways,
  assertSometimes,
  decodeChecksummedJson,
  defineSimulation,
  encodeChecksummedJson,
  isAbortError,
  type Invariant,
  type Process,
  type SimContext,
  type TraceQuery,
} from "@moonpool/sim";

const PORT = 7000;

/** Network trouble the simulation injects on purpose: retry, do not fail. */
function isNetworkTrouble(error: unknown): boolean {
  return error instanceof IoError || error instanceof TimeoutError || isAbortError(error);
}

class Ponger implements Process {
  readonly name = "ponger";
  async run(ctx: SimContext): Promise<void> {
    const listener = await ctx.network.bind(\`\${ctx.myIp}:\${PORT}\`);
    ctx.task.spawn("accept", async (scope) => {
      try {
        for (;;) {
          const conn = new FramedConnection(await listener.accept());
          scope.task.spawn("echo", async () => {
            try {
              for (let ping; (ping = await conn.recv()) !== null; ) await conn.send(ping);
            } catch (error) {
              if (!isNetworkTrouble(error)) throw error;
            } finally {
              await conn.close().catch(() => undefined);
            }
          });
        }
      } catch (error) {
        if (!isNetworkTrouble(error)) throw error; // the listener closes at shutdown
      }
    });
    while (!ctx.shutdown.aborted) await ctx.time.sleep(100);
    await listener.close();
  }
}

class Pinger implements Process {
  readonly name = "pinger";
  async run(ctx: SimContext): Promise<void> {
    const [ponger] = ctx.topology.ipsInGroup("ponger");
    let seq = 0;
    while (!ctx.shutdown.aborted) {
      try {
        const conn = new FramedConnection(await ctx.time.timeout(1_000, ctx.network.connect(\`\${ponger}:\${PORT}\`)));
        try {
          for (let inARow = 1; !ctx.shutdown.aborted; inARow++) {
            seq++;
            await conn.send(encodeChecksummedJson({ seq }));
            const pong = await ctx.time.timeout(1_000, conn.recv());
            if (pong === null) break; // closed by the peer: reconnect
            // The network flips bits on purpose: a checksum tells a corrupted echo from a wrong one.
            const echoed = decodeChecksummedJson<{ seq: number }>(pong);
            if (echoed === null) break; // corrupted on the way: drop the connection, as for a lost pong
            ctx.trace.info("pong", { sent: seq, received: echoed.seq });
            assertSometimes(inARow >= 10, "ten pongs on one connection");
            await ctx.time.sleep(ctx.random.randomRange(10, 200));
          }
        } finally {
          await conn.close().catch(() => undefined);
        }
      } catch (error) {
        if (!isNetworkTrouble(error)) throw error;
        assertSometimes(true, "the pinger met network trouble and retried");
        await ctx.time.sleep(ctx.random.randomRange(50, 500));
      }
    }
  }
}

/** Checked after every simulation step: each pong echoes the ping just sent. */
class PongsMatchPings implements Invariant {
  readonly name = "pongs match pings";
  private readonly cursor = new TraceCursor();
  observe(query: TraceQuery): void {
    for (const event of query.since("pong", this.cursor)) {
      assertAlways(event.num("received") === event.num("sent"), "a pong echoes the ping just sent");
    }
  }
  reset(): void {
    this.cursor.reset();
  }
}

export const pingPong = defineSimulation({
  name: "ping-pong",
  description: "a pinger and a ponger over the simulated network",
  // No iteration setting: the default campaign, a budget of 1,000 timelines split between fresh
  // seeds and continuations of promising ones by what each finds; campaignBudget(n) changes it.
  build: () =>
    new SimulationBuilder()
      .processes(1, () => new Ponger())
      .processes(1, () => new Pinger())
      .workloadFactory(() => ({ name: "clock", run: (ctx: SimContext) => ctx.time.sleep(5_000) }))
      .invariant(new PongsMatchPings()),
});
`;
