/**
 * Engine throughput and memory.
 *
 * - stepsPerSec / ratioToFloor: two simulated tasks exchange MESSAGES messages through the engine
 *   (a ping-pong over two channels; each message is one engine step: the hand-off event that wakes
 *   the receiver and runs its continuation to quiescence).
 * - networkStepsPerSec / networkRatioToFloor: a workload and a process exchange MESSAGES messages
 *   over simulated TCP (no faults); each message is one step too, but also pays for the byte copy,
 *   a latency draw, FIFO spacing and partition checks.
 * - floorPerSec: the same ping-pong between two bare async functions over deferred promises, no
 *   engine, in the same process: the cost of the promise machinery alone.
 * - heapBytesPerSuspendedTask: heap growth per spawned simulated task suspended in a sleep,
 *   measured with --expose-gc.
 * Rounds are interleaved; each ratio is the median of per-round ratios: the machine is shared and noisy.
 */
import { SimulationBuilder, type Process, type SimContext, type Workload } from "../packages/sim/src/index.ts";

const MESSAGES = 100_000;
const ROUNDS = 9;
const WARMUP_ROUNDS = 3;
const SUSPENDED_TASKS = 100_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

class Ponger implements Process {
  readonly name = "ponger";
  async run(ctx: SimContext): Promise<void> {
    const listener = await ctx.network.bind(`${ctx.myIp}:9000`);
    const conn = await listener.accept();
    const pong = new Uint8Array([2]);
    for (;;) {
      const bytes = await conn.read();
      if (bytes === null) return;
      // Bytes may arrive coalesced; answer each one so the exchange stays a strict ping-pong.
      for (let i = 0; i < bytes.length; i++) await conn.write(pong);
    }
  }
}

class Pinger implements Workload {
  readonly name = "pinger";
  constructor(private readonly messages: number) {}
  async run(ctx: SimContext): Promise<void> {
    const conn = await ctx.network.connect(`${ctx.topology.ipsInGroup("ponger")[0]}:9000`);
    const ping = new Uint8Array([1]);
    let received = 0;
    await conn.write(ping);
    while (received < this.messages / 2) {
      const bytes = await conn.read();
      if (bytes === null) throw new Error("ponger closed early");
      received += bytes.length;
      if (received < this.messages / 2) await conn.write(ping);
    }
    await conn.close();
  }
}

export async function networkRound(): Promise<number> {
  const report = await new SimulationBuilder()
    // The engine's cost, not the faults': no baseline network faults (bench/network.ts measures those).
    .networkFaults("none")
    .processes(1, () => new Ponger())
    .workloadFactory(() => new Pinger(MESSAGES))
    .setDebugSeeds([1])
    .setIterations(1)
    .run();
  if (report.failedRuns !== 0) throw new Error(`engine bench seed failed:\n${report.toString()}`);
  const seed = report.seeds[0]!;
  return seed.eventsProcessed / (seed.wallTimeMs / 1000);
}

export async function floorRound(): Promise<number> {
  // Two async functions handing a message back and forth through deferred promises.
  let resolveA: (v: number) => void = () => {};
  let resolveB: (v: number) => void = () => {};
  const nextA = () => new Promise<number>((r) => (resolveA = r));
  const nextB = () => new Promise<number>((r) => (resolveB = r));
  const start = performance.now();
  const b = (async () => {
    for (let i = 0; i < MESSAGES / 2; i++) {
      const v = await nextB();
      resolveA(v + 1);
    }
  })();
  const a = (async () => {
    for (let i = 0; i < MESSAGES / 2; i++) {
      const pending = nextA();
      resolveB(i);
      await pending;
    }
  })();
  await Promise.all([a, b]);
  return MESSAGES / ((performance.now() - start) / 1000);
}

async function heapPerSuspendedTask(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with node --expose-gc (npm run bench does)");
  let perTask = NaN;
  const report = await new SimulationBuilder()
    .workloadFactory(() => ({
      name: "spawner",
      async run(ctx: SimContext) {
        await ctx.time.sleep(1);
        gc();
        const before = process.memoryUsage().heapUsed;
        for (let i = 0; i < SUSPENDED_TASKS; i++) {
          ctx.task.spawn("sleeper", async (scope) => {
            await scope.time.sleep(1_000_000);
          });
        }
        await ctx.time.sleep(1); // every task started and is now suspended in its sleep
        gc();
        perTask = (process.memoryUsage().heapUsed - before) / SUSPENDED_TASKS;
      },
    }))
    .allowGlobal("process.memoryUsage") // the measurement itself, outside what the seed computes
    .setDebugSeeds([1])
    .setIterations(1)
    .run();
  if (report.failedRuns !== 0) throw new Error(`heap bench seed failed:\n${report.toString()}`);
  return perTask;
}

/**
 * stepsPerSec: two simulated tasks exchange MESSAGES messages through the engine. A strict
 * ping-pong over two channels of one process: every message is one engine event (the hand-off
 * that wakes the waiting receiver), so steps per second is messages per second.
 */
export async function channelRound(): Promise<number> {
  const report = await new SimulationBuilder()
    .workloadFactory(() => ({
      name: "exchange",
      async run(ctx: SimContext) {
        const rounds = MESSAGES / 2;
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
    .maxStepsPerInstant(10 * MESSAGES) // every hand-off happens at the same simulated instant
    .setDebugSeeds([1])
    .setIterations(1)
    .run();
  if (report.failedRuns !== 0) throw new Error(`channel bench seed failed:\n${report.toString()}`);
  const seed = report.seeds[0]!;
  return seed.eventsProcessed / (seed.wallTimeMs / 1000);
}

export async function benchEngine(): Promise<Record<string, unknown>> {
  const steps: number[] = [];
  const networkSteps: number[] = [];
  const floors: number[] = [];
  const ratios: number[] = [];
  const networkRatios: number[] = [];
  // Warm-up: V8 needs a few executions of each round before its code settles (the first two or
  // three channel rounds ran at 60-70 % of the steady rate in every trial), and steady state is
  // what a campaign of thousands of seeds runs at.
  for (let w = 0; w < WARMUP_ROUNDS; w++) {
    await channelRound();
    await networkRound();
    await floorRound();
  }
  for (let r = 0; r < ROUNDS; r++) {
    // Each ratio is taken within one round, so a noisy neighbour slows both sides of it alike.
    const channel = await channelRound();
    const network = await networkRound();
    const floor = await floorRound();
    steps.push(channel);
    networkSteps.push(network);
    floors.push(floor);
    ratios.push(channel / floor);
    networkRatios.push(network / floor);
  }
  const stepsPerSec = median(steps);
  const floorPerSec = median(floors);
  const heapBytesPerSuspendedTask = await heapPerSuspendedTask();
  console.error(
    `engine: ${Math.round(stepsPerSec).toLocaleString("en")} steps/s between two tasks, ${Math.round(median(networkSteps)).toLocaleString("en")} over simulated TCP, floor ${Math.round(floorPerSec).toLocaleString("en")} msgs/s, ${Math.round(heapBytesPerSuspendedTask)} B per suspended task`,
  );
  return {
    stepsPerSec: Math.round(stepsPerSec),
    floorPerSec: Math.round(floorPerSec),
    ratioToFloor: Number(median(ratios).toFixed(3)),
    heapBytesPerSuspendedTask: Math.round(heapBytesPerSuspendedTask),
    networkStepsPerSec: Math.round(median(networkSteps)),
    networkRatioToFloor: Number(median(networkRatios).toFixed(3)),
  };
}
