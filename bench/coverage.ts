/**
 * The cost of `moonpool run --coverage`: seeds per second of leader-election and Paxos campaigns
 * on one worker thread without and with V8 block coverage (a take after every seed, merged in
 * seed order on the main thread), exactly as the CLI runs them. Each pool is warmed up first
 * (thread start, module loading); the configurations are timed `ROUNDS` times, alternating, and
 * the best round counts. ratio = seedsPerSec with coverage / seedsPerSec without.
 */
import { fileURLToPath } from "node:url";
import { WorkerPool } from "../packages/sim/src/runner/pool/worker-pool.ts";
import { runPoolCampaign } from "../packages/sim/src/runner/pool/pool-campaign.ts";
import { blockCoverageTotals } from "../packages/sim/src/runner/coverage/block-coverage.ts";

const ROOT_DIR = fileURLToPath(new URL("..", import.meta.url));
const SIMULATIONS = [
  {
    name: "leaderElection",
    module: "../examples/leader-election/leader-election.sim.ts",
    export: "leaderElection",
    seeds: 40,
  },
  { name: "paxos", module: "../examples/paxos/paxos.sim.ts", export: "paxos", seeds: 24 },
] as const;
const WARMUP_SEEDS = 4;
const ROUNDS = 3;
const BASE_SEED = 20_241_201;

async function timeCampaign(
  pool: WorkerPool,
  sim: (typeof SIMULATIONS)[number],
  seeds: number,
  coverage: boolean,
): Promise<{ ms: number; blocks: number }> {
  const start = performance.now();
  const outcome = await runPoolCampaign(pool, {
    name: sim.name,
    source: { module: new URL(sim.module, import.meta.url).href, export: sim.export },
    overrides: { explore: false },
    plan: { kind: "fixed", baseSeed: BASE_SEED, debugSeeds: [], count: seeds },
    range: { start: 0, end: seeds },
    explore: false,
    steppingMode: "fast",
    bail: false,
    hangTimeoutMs: null,
    signal: new AbortController().signal,
    ...(coverage ? { coverageRoot: ROOT_DIR } : {}),
  });
  if (outcome.report.iterations !== seeds)
    throw new Error(`bench campaign ran ${outcome.report.iterations} of ${seeds} seeds`);
  const blocks = outcome.coverage === null ? 0 : blockCoverageTotals(outcome.coverage).blocksCovered;
  return { ms: performance.now() - start, blocks };
}

export async function benchCoverage(): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = {};
  for (const sim of SIMULATIONS) {
    // A pool per configuration: a worker that once collected coverage keeps it on.
    const plain = new WorkerPool(1);
    const covered = new WorkerPool(1);
    try {
      await timeCampaign(plain, sim, WARMUP_SEEDS, false);
      await timeCampaign(covered, sim, WARMUP_SEEDS, true);
      let plainMs = Number.POSITIVE_INFINITY;
      let coveredMs = Number.POSITIVE_INFINITY;
      let blocks = 0;
      for (let round = 0; round < ROUNDS; round++) {
        plainMs = Math.min(plainMs, (await timeCampaign(plain, sim, sim.seeds, false)).ms);
        const c = await timeCampaign(covered, sim, sim.seeds, true);
        coveredMs = Math.min(coveredMs, c.ms);
        blocks = c.blocks;
      }
      const without = (1000 * sim.seeds) / plainMs;
      const withCoverage = (1000 * sim.seeds) / coveredMs;
      result[`${sim.name}SeedsPerSec`] = Math.round(without * 10) / 10;
      result[`${sim.name}SeedsPerSecCoverage`] = Math.round(withCoverage * 10) / 10;
      result[`${sim.name}Ratio`] = Math.round((withCoverage / without) * 1000) / 1000;
      result[`${sim.name}BlocksCovered`] = blocks;
    } finally {
      await Promise.all([plain.close(), covered.close()]);
    }
  }
  return { ...result, rounds: ROUNDS, workers: 1 };
}
