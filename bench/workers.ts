/**
 * The worker pool's throughput: the leader-election simulation (seeds of ~15-25 ms, long enough
 * that pool overhead is small) run as a campaign of plain seeds on a pool of 1 and of 2 worker
 * threads, exactly as `moonpool run --workers N` runs it (seeds posted to workers, tables
 * absorbed in seed order on the main thread). Pools are warmed up first (thread start, tsx and
 * module loading are a one-off cost per run, reported separately); each configuration is timed
 * `ROUNDS` times, alternating, and the best round counts. speedup = seedsPerSec2 / seedsPerSec1.
 */
import { availableParallelism } from "node:os";
import { WorkerPool } from "../packages/sim/src/runner/pool/worker-pool.ts";
import { runPoolCampaign } from "../packages/sim/src/runner/pool/pool-campaign.ts";

const SIM_SOURCE = {
  module: new URL("../examples/leader-election/leader-election.sim.ts", import.meta.url).href,
  export: "leaderElection",
};
const SEEDS_PER_ROUND = 160;
const WARMUP_SEEDS_PER_WORKER = 4;
const ROUNDS = 3;
const BASE_SEED = 20_240_601;

/** Wall time of the campaign, and how busy the main thread was meanwhile (its share of the pool's overhead). */
async function timeCampaign(
  pool: WorkerPool,
  seeds: number,
  baseSeed: number,
): Promise<{ ms: number; mainThreadUtilization: number }> {
  const elu = performance.eventLoopUtilization();
  const start = performance.now();
  const { report } = await runPoolCampaign(pool, {
    name: "leader-election",
    source: SIM_SOURCE,
    overrides: { explore: false },
    plan: { kind: "fixed", baseSeed, debugSeeds: [], count: seeds },
    range: { start: 0, end: seeds },
    explore: false,
    steppingMode: "fast",
    bail: false,
    hangTimeoutMs: null,
    signal: new AbortController().signal,
  });
  if (report.iterations !== seeds || report.failedRuns !== 0)
    throw new Error(`bench campaign ran ${report.iterations} seeds, ${report.failedRuns} failed`);
  return { ms: performance.now() - start, mainThreadUtilization: performance.eventLoopUtilization(elu).utilization };
}

export async function benchWorkers(): Promise<Record<string, unknown>> {
  const pools = new Map<number, WorkerPool>([1, 2].map((w) => [w, new WorkerPool(w)]));
  try {
    const warmupMs: Record<string, number> = {};
    for (const [w, pool] of pools)
      warmupMs[`warmupMs${w}`] = Math.round((await timeCampaign(pool, WARMUP_SEEDS_PER_WORKER * w, BASE_SEED + 1)).ms);
    const bestMs = new Map<number, number>();
    let mainThreadUtilization2 = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [w, pool] of pools) {
        // Same seeds for both pool sizes: the work is identical, only the parallelism differs.
        const { ms, mainThreadUtilization } = await timeCampaign(pool, SEEDS_PER_ROUND, BASE_SEED);
        if (ms < (bestMs.get(w) ?? Number.POSITIVE_INFINITY)) {
          bestMs.set(w, ms);
          if (w === 2) mainThreadUtilization2 = mainThreadUtilization;
        }
      }
    }
    const seedsPerSec1 = (1000 * SEEDS_PER_ROUND) / bestMs.get(1)!;
    const seedsPerSec2 = (1000 * SEEDS_PER_ROUND) / bestMs.get(2)!;
    return {
      seedsPerSec1: Math.round(seedsPerSec1 * 10) / 10,
      seedsPerSec2: Math.round(seedsPerSec2 * 10) / 10,
      speedup: Math.round((seedsPerSec2 / seedsPerSec1) * 100) / 100,
      seedsPerRound: SEEDS_PER_ROUND,
      rounds: ROUNDS,
      cores: availableParallelism(),
      mainThreadUtilization2: Math.round(mainThreadUtilization2 * 1000) / 1000,
      ...warmupMs,
    };
  } finally {
    await Promise.all([...pools.values()].map((p) => p.close()));
  }
}
