/**
 * Memory and speed over a long campaign in one process: `SOAK_SEEDS` (default 20,000) seeds of
 * leader-election run as campaigns of 1,000 seeds, each report dropped at once. Heap after a full
 * GC is taken after a warm-up campaign (JIT, module caches) and at the end; the growth must stay
 * under 5 MB. The time of each 1,000 seeds shows whether the engine slows down as it goes (the
 * last chunk against the first, in the same process).
 */
import { leaderElectionSimulation } from "../examples/leader-election/simulation.ts";

const CHUNK_SEEDS = 1000;
const WARMUP_SEEDS = 200;
const BASE_SEED = 31_337;
const MAX_GROWTH_MB = 5;

function heapAfterGcMb(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("the soak bench needs --expose-gc (npm run bench passes it)");
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 1e6;
}

async function runChunk(baseSeed: number, seeds: number): Promise<number> {
  const start = performance.now();
  const report = await leaderElectionSimulation().setBaseSeed(baseSeed).setIterations(seeds).run();
  if (report.iterations !== seeds) throw new Error(`soak chunk ran ${report.iterations} of ${seeds} seeds`);
  return performance.now() - start;
}

/** Lets the event loop turn so finalizers and queued microtasks of the dropped report finish. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function benchSoak(): Promise<Record<string, unknown>> {
  const seeds = Number(process.env.SOAK_SEEDS ?? 20_000);
  if (!Number.isSafeInteger(seeds) || seeds < CHUNK_SEEDS)
    throw new RangeError(`SOAK_SEEDS must be an integer >= ${CHUNK_SEEDS}`);
  await runChunk(BASE_SEED - 1, WARMUP_SEEDS);
  await turn();
  const heapStartMb = heapAfterGcMb();
  const msPer1000: number[] = [];
  for (let done = 0; done < seeds; done += CHUNK_SEEDS) msPer1000.push(await runChunk(BASE_SEED + done, CHUNK_SEEDS));
  await turn();
  const heapEndMb = heapAfterGcMb();
  const growthMb = heapEndMb - heapStartMb;
  const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;
  const firstMs = msPer1000[0]!;
  const lastMs = msPer1000[msPer1000.length - 1]!;
  return {
    seeds,
    heapStartMb: round(heapStartMb),
    heapEndMb: round(heapEndMb),
    growthMb: round(growthMb),
    growthUnder5Mb: growthMb < MAX_GROWTH_MB,
    msPer1000Seeds: msPer1000.map((ms) => Math.round(ms)),
    lastVsFirstChunk: round(lastMs / firstMs),
  };
}
