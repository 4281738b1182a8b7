/**
 * What seed isolation costs per seed: the same seeds as a campaign on one worker, once with
 * realms shared across seeds and once with a fresh realm per seed (runner/isolation.ts), on a
 * Node-runtime example with libraries (yjs-sync), one with the simulated http2 stack
 * (grpc-service) and a provider-only one with millisecond seeds (leader-election). Each pair runs
 * shared then isolated; the figure is the median over `PAIRS` pairs of (isolated - shared) per
 * seed, in wall time and in CPU time of the whole process (all threads: a fresh realm's start-up
 * is CPU a busy machine pays for even when it overlaps the previous seed).
 */
import { runPoolCampaign } from "../packages/sim/src/runner/pool/pool-campaign.ts";
import { WorkerPool } from "../packages/sim/src/runner/pool/worker-pool.ts";
import type { IsolationMode } from "../packages/sim/src/runner/isolation.ts";

const PAIRS = 5;
const BASE_SEED = 20_261_202;

interface Subject {
  readonly name: string;
  readonly module: string;
  readonly export: string;
  /** Seeds per campaign: enough to amortise the campaign's own start, few enough to keep the bench short. */
  readonly seeds: number;
}

const SUBJECTS: readonly Subject[] = [
  { name: "yjs-sync", module: "../examples/yjs-sync/yjs-sync.sim.ts", export: "yjsSync", seeds: 4 },
  { name: "grpc-service", module: "../examples/grpc-service/grpc-service.sim.ts", export: "grpcService", seeds: 4 },
  {
    name: "leader-election",
    module: "../examples/leader-election/leader-election.sim.ts",
    export: "leaderElection",
    seeds: 8,
  },
];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Wall and CPU ms per seed of one campaign (the pool already warm for the shared mode's module). */
async function perSeed(
  pool: WorkerPool,
  subject: Subject,
  isolation: IsolationMode,
): Promise<{ wallMs: number; cpuMs: number; hashes: string[] }> {
  const source = { module: new URL(subject.module, import.meta.url).href, export: subject.export };
  const cpuStart = cpuMs();
  const start = performance.now();
  const { report } = await runPoolCampaign(pool, {
    name: subject.name,
    source,
    overrides: { explore: false },
    plan: { kind: "fixed", baseSeed: BASE_SEED, debugSeeds: [], count: subject.seeds },
    range: { start: 0, end: subject.seeds },
    explore: false,
    steppingMode: "fast",
    bail: false,
    hangTimeoutMs: null,
    isolation,
    signal: new AbortController().signal,
  });
  if (report.iterations !== subject.seeds) throw new Error(`${subject.name}: ran ${report.iterations} seeds`);
  return {
    wallMs: (performance.now() - start) / subject.seeds,
    cpuMs: (cpuMs() - cpuStart) / subject.seeds,
    hashes: report.seeds.map((s) => s.traceHash),
  };
}

const round = (ms: number): number => Math.round(ms * 10) / 10;

export async function benchIsolation(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { pairs: PAIRS };
  for (const subject of SUBJECTS) {
    const pool = new WorkerPool(1);
    try {
      // Warm-up: the shared realm imports the module and JIT-compiles once, as in a long campaign.
      await perSeed(pool, subject, "shared");
      const wall: number[] = [];
      const cpu: number[] = [];
      const shared: number[] = [];
      const isolated: number[] = [];
      for (let pair = 0; pair < PAIRS; pair++) {
        const a = await perSeed(pool, subject, "shared");
        const b = await perSeed(pool, subject, "seed");
        shared.push(a.wallMs);
        isolated.push(b.wallMs);
        wall.push(b.wallMs - a.wallMs);
        cpu.push(b.cpuMs - a.cpuMs);
      }
      out[subject.name] = {
        seedsPerCampaign: subject.seeds,
        sharedMsPerSeed: round(median(shared)),
        isolatedMsPerSeed: round(median(isolated)),
        isolationWallMsPerSeed: round(median(wall)),
        isolationCpuMsPerSeed: round(median(cpu)),
        ratio: round(median(isolated) / median(shared)),
      };
    } finally {
      await pool.close();
    }
  }
  return out;
}
