/**
 * How the cost of a simulation grows, by CPU time (process.cpuUsage), medians of ROUNDS rounds
 * after a warm-up:
 *
 * - byNodes: cost per event of the gossip of bench/peers-steps.ts at 3, 10, 30 and 100 nodes,
 *   all-to-all and with a fixed fanout of 3, for seeds of about 60,000 events: `perEventUs`
 *   counts every event of the seed (connection set-up included), `marginalUs` one more gossip
 *   event once connected (the difference of a seed of 60,000 and one of 15,000), and `vs3` each
 *   one over the 3-node figure.
 * - byEvents: cost per event at 10 nodes, fanout 3, for seeds of 1,000 to 80,000 events.
 * - memory: heap after a full GC every 1,000 seeds over 10,000 seeds of a 3-node gossip, run as
 *   campaigns of 1,000 whose reports are dropped; `growthBytesPerSeed` is the slope from the first
 *   sample to the last.
 */
import { SimulationBuilder, type SimContext } from "../packages/sim/src/index.ts";
import { cpuMs } from "./peers-measure.ts";
import { Gossiper, gossip, gossipMarginal } from "./peers-steps.ts";

const ROUNDS = Number(process.env.SCALING_ROUNDS ?? 3);
const NODES = [3, 10, 30, 100];
const EVENTS_PER_SEED = [1_000, 5_000, 20_000, 80_000];
const MEMORY_SEEDS = Number(process.env.SCALING_MEMORY_SEEDS ?? 10_000);
const SAMPLE_EVERY = 1_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const us = (x: number) => Number(x.toFixed(3));

async function byNodes(fanout: number): Promise<Record<string, unknown>[]> {
  const rows: { nodes: number; perEventUs: number; marginalUs: number }[] = [];
  for (const nodes of NODES) {
    await gossip(nodes, fanout, 15_000); // warm-up of this size
    const total: number[] = [];
    const marginal: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const g = await gossip(nodes, fanout, 60_000);
      total.push((1000 * g.cpuMs) / g.events);
      const m = await gossipMarginal(nodes, fanout, 60_000);
      marginal.push((1000 * m.cpuMs) / m.events);
    }
    rows.push({ nodes, perEventUs: median(total), marginalUs: median(marginal) });
  }
  const base = rows[0]!;
  return rows.map((r) => ({
    nodes: r.nodes,
    perEventUs: us(r.perEventUs),
    marginalUs: us(r.marginalUs),
    vs3: us(r.perEventUs / base.perEventUs),
    marginalVs3: us(r.marginalUs / base.marginalUs),
  }));
}

async function byEvents(): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const events of EVENTS_PER_SEED) {
    await gossip(10, 3, events);
    const perEvent: number[] = [];
    let seen = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const g = await gossip(10, 3, events);
      perEvent.push((1000 * g.cpuMs) / g.events);
      seen = g.events;
    }
    rows.push({ targetEvents: events, events: seen, perEventUs: us(median(perEvent)) });
  }
  return rows;
}

/** One campaign of `seeds` seeds of a 3-node gossip; its report is dropped by the caller. */
async function memoryCampaign(seeds: number, baseSeed: number): Promise<number> {
  const report = await new SimulationBuilder()
    .networkFaults("none")
    .processes(3, () => new Gossiper(Infinity))
    .workloadFactory(() => ({ name: "driver", run: (ctx: SimContext) => ctx.time.sleep(200) }))
    .setBaseSeed(baseSeed)
    .setIterations(seeds)
    .run();
  if (report.failedRuns !== 0) throw new Error(`memory campaign failed:\n${report.toString()}`);
  return report.seeds.length;
}

/**
 * Heap after a full GC once every SAMPLE_EVERY seeds, the seeds run as campaigns of SAMPLE_EVERY
 * whose reports are dropped: what a seed leaves behind once its campaign's report is gone. (A
 * campaign's own report keeps every seed's result, chaos record included, by design.)
 */
async function memory(): Promise<Record<string, unknown>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with node --expose-gc (npm run bench does)");
  const heapBytes: number[] = [];
  let seeds = 0;
  const ms = await cpuMs(async () => {
    for (let c = 0; seeds < MEMORY_SEEDS; c++) {
      seeds += await memoryCampaign(SAMPLE_EVERY, 3 + c);
      gc();
      heapBytes.push(process.memoryUsage().heapUsed);
    }
  });
  // From the first sample (JIT and caches warm) to the last.
  const first = heapBytes[0]!;
  const last = heapBytes[heapBytes.length - 1]!;
  return {
    seeds,
    cpuMsPerSeed: us(ms / seeds),
    heapMb: heapBytes.map((b) => Number((b / 2 ** 20).toFixed(1))),
    growthBytesPerSeed: Math.round((last - first) / Math.max(1, seeds - SAMPLE_EVERY)),
  };
}

export async function benchScaling(): Promise<Record<string, unknown>> {
  const only = process.env.SCALING_ONLY?.split(",");
  const want = (name: string) => only === undefined || only.includes(name);
  const out: Record<string, unknown> = { rounds: ROUNDS, measuredBy: "process.cpuUsage" };
  if (want("nodes")) {
    const allToAll = await byNodes(Infinity);
    console.error(`scaling: all-to-all ${JSON.stringify(allToAll)}`);
    const fanout3 = await byNodes(3);
    console.error(`scaling: fanout 3 ${JSON.stringify(fanout3)}`);
    out.byNodes = { allToAll, fanout3 };
  }
  if (want("events")) {
    out.byEvents = await byEvents();
    console.error(`scaling: by events ${JSON.stringify(out.byEvents)}`);
  }
  if (want("memory")) {
    out.memory = await memory();
    console.error(`scaling: memory ${JSON.stringify(out.memory)}`);
  }
  return out;
}
