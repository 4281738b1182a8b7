/**
 * Helpers for the simulated `node:fs` tests: a one-workload seed with `nodeRuntime().nodeFs()`, and
 * a crash scenario (one process, crashed once by a fault injector, then booted again on the same
 * disk) that records what its second boot finds.
 */
import {
  DEFAULT_STORAGE_CONFIG,
  SimulationBuilder,
  type SimContext,
  type SimulationReport,
  type StorageConfig,
} from "../../src/index.ts";
import type { NodeFsSettings } from "../../src/runner/node-fs-settings.ts";

export function fsSeed(
  run: (ctx: SimContext) => Promise<void> | void,
  options: { seeds?: number[]; storage?: StorageConfig; fs?: NodeFsSettings } = {},
): Promise<SimulationReport> {
  const seeds = options.seeds ?? [5];
  return new SimulationBuilder()
    .networkFaults("none")
    .storageFaults(options.storage ?? DEFAULT_STORAGE_CONFIG)
    .workloadFactory(() => ({ name: "w", run: async (ctx: SimContext) => run(ctx) }))
    .nodeRuntime()
    .nodeFs(options.fs ?? {})
    .setDebugSeeds(seeds)
    .setIterations(seeds.length)
    .run();
}

/** Every unsynced write and every unsynced directory change is lost at a crash. */
export const LOSE_EVERYTHING_UNSYNCED: StorageConfig = {
  ...DEFAULT_STORAGE_CONFIG,
  crashFaultProbability: 1,
  crashLostWriteRatio: 1,
};

export interface CrashOutcome<T> {
  readonly report: SimulationReport;
  /** What the boot after the crash saw. */
  readonly after: T | undefined;
}

/**
 * Boots one process that runs `before` (then idles); a fault injector crashes it at 500 ms; the
 * next boot (same disk) runs `after` and records its answer.
 */
export async function crashScenario<T>(
  before: (ctx: SimContext) => Promise<void> | void,
  after: (ctx: SimContext) => T,
  storage: StorageConfig = LOSE_EVERYTHING_UNSYNCED,
  seed = 9,
): Promise<CrashOutcome<T>> {
  let boots = 0;
  let seen: T | undefined;
  const idle = (ctx: SimContext) =>
    new Promise<void>((resolve) => ctx.shutdown.addEventListener("abort", () => resolve(), { once: true }));
  const report = await new SimulationBuilder()
    .networkFaults("none")
    .storageFaults(storage)
    .processes(1, () => ({
      name: "disk",
      run: async (ctx: SimContext) => {
        boots++;
        if (boots === 1) await before(ctx);
        else if (boots === 2) seen = after(ctx);
        await idle(ctx);
      },
    }))
    .workloadFactory(() => ({ name: "waiter", run: (ctx: SimContext) => ctx.time.sleep(3_000) }))
    .chaosDuration(1_000)
    .faultFactory(() => ({
      name: "crasher",
      inject: async (ctx) => {
        await ctx.time.sleep(500);
        ctx.rebootWithDelays(ctx.processIps()[0]!, "crash", 100, 0);
      },
    }))
    .nodeRuntime()
    .nodeFs()
    .setDebugSeeds([seed])
    .setIterations(1)
    .run();
  return { report, after: seen };
}
