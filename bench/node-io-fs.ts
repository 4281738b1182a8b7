/**
 * The `fs` line of `npm run bench -- node-io`: synced writes per second (wall time) inside the
 * simulation, two ways in one run:
 *
 * - nodeFsSyncedWritesPerSec: `node:fs/promises` on the simulated disk (`nodeFs()`): a FileHandle
 *   `write` of a 64-byte record at the end of a log, then `sync()`, one at a time;
 * - providerSyncedWritesPerSec: the same record and sync through the core storage provider
 *   (`ctx.storage`), the floor the `node:fs` facade adds to.
 *
 * Baseline disk (no faults). Interleaved rounds; medians. `ratio` = nodeFs / provider.
 */
import { open } from "node:fs/promises";
import { OpenOptions } from "../packages/core/src/index.ts";
import { SimulationBuilder, type SimContext } from "../packages/sim/src/index.ts";

const WRITES = 4_000;
const ROUNDS = 5;
const RECORD = new Uint8Array(64).fill(7);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(run: (ctx: SimContext) => Promise<void>): Promise<number> {
  const start = performance.now();
  const report = await new SimulationBuilder()
    .networkFaults("none")
    .workload({ name: "writer", run })
    .nodeRuntime()
    .nodeFs()
    .setBaseSeed(1)
    .setIterations(1)
    .runTimeBudget(10_000_000)
    .run();
  const seconds = (performance.now() - start) / 1000;
  if (report.failedRuns > 0) throw new Error(report.toString());
  return WRITES / seconds;
}

const nodeFsRound = () =>
  measure(async () => {
    const handle = await open("/tmp/bench.log", "a");
    for (let i = 0; i < WRITES; i++) {
      await handle.write(RECORD);
      await handle.sync();
    }
    await handle.close();
  });

const providerRound = () =>
  measure(async (ctx) => {
    const file = await ctx.storage.open("bench.log", OpenOptions.readWriteCreate);
    for (let i = 0; i < WRITES; i++) {
      await file.write(i * RECORD.length, RECORD);
      await file.sync();
    }
    await file.close();
  });

export async function benchNodeFs(): Promise<Record<string, unknown>> {
  await nodeFsRound(); // warm-up: module loading and JIT
  await providerRound();
  const nodeFs: number[] = [];
  const provider: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    nodeFs.push(await nodeFsRound());
    provider.push(await providerRound());
  }
  const nodeFsSyncedWritesPerSec = Math.round(median(nodeFs));
  const providerSyncedWritesPerSec = Math.round(median(provider));
  return {
    syncedWritesPerRound: WRITES,
    rounds: ROUNDS,
    nodeFsSyncedWritesPerSec,
    providerSyncedWritesPerSec,
    ratio: Number((nodeFsSyncedWritesPerSec / providerSyncedWritesPerSec).toFixed(3)),
  };
}
