/**
 * Simulated storage throughput: 4 KiB write + sync pairs per wall-clock second.
 *
 * - baselineOpsPerSec: the baseline storage configuration (faults off).
 * - swarmOpsPerSec: the swarm configurations (`Chaos.storage("swarm")`) of the same seeds: the same
 *   workload pays for the fault draws, for keeping what each write overwrote while crash faults
 *   are on (so a crash can lose it), for retried failed syncs, and for stall/throttle bookkeeping
 *   (simulated stalls cost no wall time).
 * The workload runs on a world driven directly (one process, one file, offsets cycling over
 * 4 MiB). Rounds interleave baseline and swarm and the median is reported: the machine is shared
 * and noisy.
 */
import { IoError, OpenOptions } from "../packages/core/src/index.ts";
import { swarmStorageConfig } from "../packages/sim/src/chaos/storage-config.ts";
import { Incarnation } from "../packages/sim/src/engine/incarnation.ts";
import { ActorScope } from "../packages/sim/src/world/scope.ts";
import { DEFAULT_STORAGE_CONFIG, type StorageConfig } from "../packages/sim/src/world/storage/config.ts";
import { ProcessClock } from "../packages/sim/src/world/time.ts";
import { World } from "../packages/sim/src/world/world.ts";

const PAIRS = 20_000;
const WRITE_BYTES = 4096;
const OFFSETS = 1024; // 4 MiB of distinct offsets
const ROUNDS = 7;
/** Both configurations run these seeds (one fresh world each), so they pay the same setup costs. */
const SEEDS = [1, 2, 3, 4];
const IP = "10.0.1.1";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Runs `pairs` write+sync pairs in a fresh world; returns the wall-clock ms it took. */
async function runPairs(seed: number, config: (world: World) => StorageConfig, pairs: number): Promise<number> {
  const world = new World({ seed });
  world.storage.setConfig(config(world));
  const incarnation = new Incarnation(`bench@${IP}`);
  const scope = new ActorScope(world, incarnation, null, new ProcessClock(), IP);
  const block = new Uint8Array(WRITE_BYTES).fill(7);
  let done = false;
  let failure: unknown;
  const body = async (): Promise<void> => {
    const file = await scope.storage.open("bench.dat", OpenOptions.readWriteCreate);
    for (let i = 0; i < pairs; i++) {
      await file.write((i % OFFSETS) * WRITE_BYTES, block);
      // A failed sync (EIO, swarm only) leaves the write unsynced: retry, as a real system would.
      for (;;) {
        try {
          await file.sync();
          break;
        } catch (error) {
          if (!(error instanceof IoError && error.code === "EIO")) throw error;
        }
      }
    }
  };
  body().then(
    () => (done = true),
    (error: unknown) => {
      failure = error;
      done = true;
    },
  );
  world.engine.installTickCounter();
  const start = performance.now();
  try {
    await world.engine.runUntil(() => done);
  } finally {
    world.engine.uninstallTickCounter();
  }
  const wallMs = performance.now() - start;
  if (failure !== undefined) throw failure;
  if (!done) throw new Error(`storage bench (seed ${seed}) did not finish`);
  return wallMs;
}

function swarm(world: World): StorageConfig {
  return swarmStorageConfig(world.engine.streams.sim, world.engine.streams.config).config;
}

export async function benchStorage(): Promise<Record<string, unknown>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  // Warm up both paths once (JIT), untimed.
  await runPairs(1, () => DEFAULT_STORAGE_CONFIG, PAIRS / 4);
  await runPairs(1, swarm, PAIRS / 4);
  const baseline: number[] = [];
  const swarmed: number[] = [];
  const pairsPerSeed = PAIRS / SEEDS.length;
  const measure = async (config: (world: World) => StorageConfig): Promise<number> => {
    gc?.();
    let wallMs = 0;
    for (const seed of SEEDS) wallMs += await runPairs(seed, config, pairsPerSeed);
    return PAIRS / (wallMs / 1000);
  };
  for (let round = 0; round < ROUNDS; round++) {
    baseline.push(await measure(() => DEFAULT_STORAGE_CONFIG));
    swarmed.push(await measure(swarm));
    console.error(
      `round ${round + 1}/${ROUNDS}: baseline ${Math.round(baseline[round]!)} pairs/s, swarm ${Math.round(swarmed[round]!)} pairs/s`,
    );
  }
  const baselineOpsPerSec = Math.round(median(baseline));
  const swarmOpsPerSec = Math.round(median(swarmed));
  return {
    baselineOpsPerSec,
    swarmOpsPerSec,
    swarmToBaseline: Number((swarmOpsPerSec / baselineOpsPerSec).toFixed(3)),
  };
}
