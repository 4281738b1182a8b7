/**
 * Engine throughput and memory.
 *
 * - stepsPerSec: a workload and a process exchange MESSAGES ping-pong messages over the simulated
 *   network; each message is one engine step (write → delivery event → the reader's continuation).
 * - floorPerSec: the same ping-pong between two bare async functions over deferred promises, no
 *   engine, in the same process: the cost of the promise machinery alone.
 * - heapBytesPerSuspendedTask: heap growth per spawned simulated task suspended in a sleep,
 *   measured with --expose-gc.
 * Rounds are interleaved and the median is reported: the machine is shared and noisy.
 */
import { SimulationBuilder, type Process, type SimContext, type Workload } from "../packages/sim/src/index.ts";

const MESSAGES = 100_000;
const ROUNDS = 5;
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

export async function engineRound(): Promise<number> {
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
    .setDebugSeeds([1])
    .setIterations(1)
    .run();
  if (report.failedRuns !== 0) throw new Error(`heap bench seed failed:\n${report.toString()}`);
  return perTask;
}

/**
 * The engine without the network: two spawned tasks hand a token back and forth, each handoff
 * one engine event that wakes the other (a `yieldNow` per message). Isolates the step loop,
 * pending operations and event queue from the simulated TCP path.
 */
export async function handoffRound(): Promise<number> {
  const report = await new SimulationBuilder()
    .workloadFactory(() => ({
      name: "handoff",
      async run(ctx: SimContext) {
        let turn = 0;
        const player = (me: number) =>
          ctx.task.spawn(`player-${me}`, async (scope) => {
            while (turn < MESSAGES) {
              if (turn % 2 === me) turn++;
              await scope.task.yieldNow();
            }
          });
        await Promise.all([player(0), player(1)]);
      },
    }))
    .networkFaults("none")
    .maxStepsPerInstant(100 * MESSAGES)
    .setDebugSeeds([1])
    .setIterations(1)
    .run();
  if (report.failedRuns !== 0) throw new Error(`handoff bench seed failed:\n${report.toString()}`);
  const seed = report.seeds[0]!;
  return seed.eventsProcessed / (seed.wallTimeMs / 1000);
}

export async function benchEngine(): Promise<Record<string, unknown>> {
  const steps: number[] = [];
  const handoffs: number[] = [];
  const floors: number[] = [];
  await engineRound(); // warm-up (JIT)
  await handoffRound();
  await floorRound();
  for (let r = 0; r < ROUNDS; r++) {
    steps.push(await engineRound());
    handoffs.push(await handoffRound());
    floors.push(await floorRound());
  }
  const stepsPerSec = median(steps);
  const handoffStepsPerSec = median(handoffs);
  const floorPerSec = median(floors);
  const heapBytesPerSuspendedTask = await heapPerSuspendedTask();
  console.error(`engine: ${Math.round(stepsPerSec).toLocaleString("en")} steps/s, floor ${Math.round(floorPerSec).toLocaleString("en")} msgs/s, ${Math.round(heapBytesPerSuspendedTask)} B per suspended task`);
  return {
    stepsPerSec: Math.round(stepsPerSec),
    floorPerSec: Math.round(floorPerSec),
    ratioToFloor: Number((stepsPerSec / floorPerSec).toFixed(3)),
    engineOnlyStepsPerSec: Math.round(handoffStepsPerSec),
    engineOnlyRatioToFloor: Number((handoffStepsPerSec / floorPerSec).toFixed(3)),
    heapBytesPerSuspendedTask: Math.round(heapBytesPerSuspendedTask),
  };
}
