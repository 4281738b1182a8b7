/**
 * Step-cost workloads of the peer benchmarks, each returning CPU milliseconds (and a count where a
 * cost per unit is compared):
 *
 * - channel ping-pong: two Moonpool tasks exchanging MESSAGES messages over two channels, against
 *   a minimal stepped engine in this file (a FIFO of events, the same quiescence hop as our
 *   engine: a resolved promise's reaction queues a `nextTick` that takes the next step).
 * - gossip: N processes over simulated TCP, all-to-all or a fixed fanout, each sending a byte to a
 *   random peer after every random sleep, for a simulated time that keeps the events per seed
 *   about constant whatever N.
 * - whole-trace invariant: a workload recording FACTS facts, watched by an invariant that reads
 *   every fact so far after each step (`snapshot`), or only the new ones (`since` with a cursor).
 */
import {
  SimulationBuilder,
  TraceCursor,
  type Connection,
  type Invariant,
  type Process,
  type SimContext,
  type TraceQuery,
} from "../packages/sim/src/index.ts";
import { cpuMs } from "./peers-measure.ts";

export const MESSAGES = 100_000;

export interface CpuPerEvent {
  readonly cpuMs: number;
  readonly events: number;
}

/** Ours: the channel ping-pong of bench/engine.ts, timed by CPU. */
export function moonpoolPingPong(): Promise<number> {
  return cpuMs(async () => {
    const rounds = MESSAGES / 2;
    const report = await new SimulationBuilder()
      .workloadFactory(() => ({
        name: "exchange",
        async run(ctx: SimContext) {
          const pinger = ctx.task.spawn("pinger", async (scope) => {
            const ping = scope.task.channel<number>("ping");
            const pong = scope.task.channel<number>("pong");
            for (let i = 0; i < rounds; i++) {
              ping.send(i);
              await pong.recv();
            }
          });
          const ponger = ctx.task.spawn("ponger", async (scope) => {
            const ping = scope.task.channel<number>("ping");
            const pong = scope.task.channel<number>("pong");
            for (let i = 0; i < rounds; i++) pong.send((await ping.recv())! + 1);
          });
          await pinger;
          await ponger;
        },
      }))
      .networkFaults("none")
      .maxStepsPerInstant(10 * MESSAGES)
      .setDebugSeeds([1])
      .setIterations(1)
      .run();
    if (report.failedRuns !== 0) throw new Error(`ping-pong seed failed:\n${report.toString()}`);
  });
}

const RESOLVED = Promise.resolve();

/** The smallest engine with the engine's quiescence hop: FIFO events, one per step, a hop between steps. */
class MiniEngine {
  private readonly callbacks: ((arg: unknown) => void)[] = [];
  private readonly args: unknown[] = [];
  private head = 0;
  private done: () => void = () => {};
  private readonly hop = (): void => {
    process.nextTick(this.quiescent);
  };
  private readonly quiescent = (): void => {
    if (this.head === this.callbacks.length) return this.done();
    const i = this.head++;
    this.callbacks[i]!(this.args[i]);
    void RESOLVED.then(this.hop);
  };
  schedule(callback: (arg: unknown) => void, arg: unknown): void {
    this.callbacks.push(callback);
    this.args.push(arg);
  }
  run(): Promise<void> {
    return new Promise((resolve) => {
      this.done = resolve;
      void RESOLVED.then(this.hop);
    });
  }
}

/** A channel on the mini engine: a send to a waiting receiver is handed off by one engine event. */
class MiniChannel {
  private readonly values: number[] = [];
  private waiter: ((v: number) => void) | null = null;
  constructor(private readonly engine: MiniEngine) {}
  private static handOff(self: unknown): void {
    const ch = self as MiniChannel;
    const w = ch.waiter!;
    ch.waiter = null;
    w(ch.values.shift()!);
  }
  send(v: number): void {
    this.values.push(v);
    if (this.waiter !== null) this.engine.schedule(MiniChannel.handOff, this);
  }
  recv(): Promise<number> {
    if (this.values.length > 0) return Promise.resolve(this.values.shift()!);
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

export function miniPingPong(): Promise<number> {
  return cpuMs(async () => {
    const engine = new MiniEngine();
    const ping = new MiniChannel(engine);
    const pong = new MiniChannel(engine);
    const rounds = MESSAGES / 2;
    const a = (async () => {
      for (let i = 0; i < rounds; i++) {
        ping.send(i);
        await pong.recv();
      }
    })();
    const b = (async () => {
      for (let i = 0; i < rounds; i++) pong.send((await ping.recv()) + 1);
    })();
    await engine.run();
    await Promise.all([a, b]);
  });
}

const PORT = 9000;
const MEAN_SLEEP_MS = 20;

export class Gossiper implements Process {
  readonly name = "gossip";
  constructor(private readonly fanout: number) {}
  async run(ctx: SimContext): Promise<void> {
    const listener = await ctx.network.bind(`${ctx.myIp}:${PORT}`);
    void (async () => {
      for (;;) {
        const conn = await listener.accept();
        void (async () => {
          while ((await conn.read()) !== null) {}
        })();
      }
    })();
    const ips = ctx.topology.ipsInGroup("gossip");
    const me = ips.indexOf(ctx.myIp);
    const peers = ips.length - 1;
    const targets: string[] = [];
    for (let k = 1; k <= Math.min(this.fanout, peers); k++) targets.push(ips[(me + k) % ips.length]!);
    const conns: Connection[] = [];
    for (const ip of targets) conns.push(await ctx.network.connect(`${ip}:${PORT}`));
    const byte = new Uint8Array([1]);
    while (!ctx.shutdown.aborted) {
      await ctx.time.sleep(ctx.random.randomRange(1, 2 * MEAN_SLEEP_MS));
      await conns[ctx.random.randomRange(0, conns.length)]!.write(byte);
    }
  }
}

/**
 * One seed of `nodes` gossipers (fanout `Infinity`: all-to-all) whose simulated duration gives
 * about `targetEvents` events whatever the size (each send is a sleep, a write and a delivery).
 */
export async function gossip(nodes: number, fanout: number, targetEvents: number, seed = 1): Promise<CpuPerEvent> {
  const durationMs = Math.max(50, Math.round((targetEvents / 3 / nodes) * MEAN_SLEEP_MS));
  let events = 0;
  const ms = await cpuMs(async () => {
    const report = await new SimulationBuilder()
      .networkFaults("none")
      .processes(nodes, () => new Gossiper(fanout))
      .workloadFactory(() => ({ name: "driver", run: (ctx: SimContext) => ctx.time.sleep(durationMs) }))
      .setDebugSeeds([seed])
      .setIterations(1)
      .run();
    if (report.failedRuns !== 0) throw new Error(`gossip seed failed:\n${report.toString()}`);
    events = report.seeds[0]!.eventsProcessed;
  });
  return { cpuMs: ms, events };
}

/**
 * The cost of one more gossip event once the cluster is connected: the difference between a seed
 * with about `targetEvents` gossip events and one with a quarter of them, over their difference in
 * events. The connection set-up (3 events per connection, 9,900 connections all-to-all at 100
 * nodes, as many as the gossip itself) cancels out.
 */
export async function gossipMarginal(nodes: number, fanout: number, targetEvents: number): Promise<CpuPerEvent> {
  const short = await gossip(nodes, fanout, targetEvents / 4);
  const long = await gossip(nodes, fanout, targetEvents);
  return { cpuMs: long.cpuMs - short.cpuMs, events: long.events - short.events };
}

/** A fact per sleep until FACTS facts, with an invariant reading the whole trace or only what is new. */
export async function wholeTrace(facts: number, reader: "snapshot" | "cursor"): Promise<CpuPerEvent> {
  class Sum implements Invariant {
    readonly name = "sum";
    private cursor = new TraceCursor();
    private total = 0;
    observe(q: TraceQuery): void {
      if (reader === "snapshot") {
        let total = 0;
        for (const e of q.snapshot("fact")) total += e.num("n")!;
        this.total = total;
      } else {
        for (const e of q.since("fact", this.cursor)) this.total += e.num("n")!;
      }
      if (this.total < 0) throw new Error("negative");
    }
    reset(): void {
      this.cursor.reset();
      this.total = 0;
    }
  }
  let events = 0;
  const ms = await cpuMs(async () => {
    const report = await new SimulationBuilder()
      .workloadFactory(() => ({
        name: "facts",
        async run(ctx: SimContext) {
          for (let n = 0; n < facts; n++) {
            await ctx.time.sleep(1);
            ctx.trace.info("fact", { n });
          }
        },
      }))
      .invariant(new Sum())
      .networkFaults("none")
      .setDebugSeeds([1])
      .setIterations(1)
      .run();
    if (report.failedRuns !== 0) throw new Error(`whole-trace seed failed:\n${report.toString()}`);
    events = report.seeds[0]!.eventsProcessed;
  });
  return { cpuMs: ms, events };
}
