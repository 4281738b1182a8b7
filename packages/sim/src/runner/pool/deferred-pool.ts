/**
 * The exploration's worker pool, started only when the machine has a spare core. Threads share
 * the cores with everything else running: on a busy machine a worker gets no CPU this thread
 * would not otherwise have had, while its start-up (a thread, the TypeScript loader, the
 * simulation's modules: over a second of CPU each) and every message are paid for by the run.
 * So the pool starts at the first check after which the machine was at least `minSpareCores`
 * idle over a sample while the run had `minWorkLeftMs` of work left for workers, and never
 * before (docs/decisions.md D15, D17). Where roots run changes only speed: the outcome is the
 * same whether the pool started early, late or never.
 */
import { cpus } from "node:os";
import { natives } from "../../engine/natives.ts";
import type { SimulationConfig } from "../config.ts";
import { configFingerprint } from "../config-fingerprint.ts";
import { loadSimulationBuilder, type SimulationSource } from "../simulation-source.ts";
import { checkWorkerConfiguration, refuseDifferentSimulation } from "./worker-check.ts";
import type { PoolTask, PoolTaskResults, TaskOutcome } from "./messages.ts";
import { type RunOptions, WorkerPool } from "./worker-pool.ts";

export interface PoolStartPolicy {
  /** Idle CPU of the whole machine, in cores, over a sample, that starts the pool (0: at the first check). */
  readonly minSpareCores: number;
  /** Shortest sample of idle CPU (ms of wall time). */
  readonly sampleMs: number;
  /**
   * Work left that workers could take (the run's estimate, in ms) below which the pool does not
   * start: a run that ends within a worker's start-up could not use it.
   */
  readonly minWorkLeftMs: number;
}

export const DEFAULT_POOL_START: PoolStartPolicy = {
  minSpareCores: 0.75,
  sampleMs: 500,
  minWorkLeftMs: 3000,
};

let policy: PoolStartPolicy = DEFAULT_POOL_START;

/** Exploration pools this process has started (benchmarks report whether a run used workers). */
export let poolsStarted = 0;

/** Replaces the start policy of pools created afterwards (tests start pools at once); returns the previous one. */
export function setPoolStartPolicy(next: PoolStartPolicy): PoolStartPolicy {
  const previous = policy;
  policy = next;
  return previous;
}

function idleMs(): number {
  let total = 0;
  for (const cpu of cpus()) total += cpu.times.idle;
  return total;
}

/**
 * Loads the source in this thread and refuses to go on when the configuration it builds is not
 * this one: the same check the workers make, done at once so a run whose pool never starts is
 * refused too (settings added after the source's export are invisible to the workers).
 */
export async function checkSourceHere(source: SimulationSource, config: SimulationConfig): Promise<void> {
  refuseDifferentSimulation(source, config, configFingerprint((await loadSimulationBuilder(source)).build()));
}

/** A pool of `size` workers for `source`, started when the machine has a spare core (see above). */
export class DeferredPool {
  private pool: WorkerPool | null = null;
  private checked: { readonly error: unknown } | "passed" | null = null;
  private settled: Promise<void> = Promise.resolve();
  private readonly policy = policy;
  private sampleIdleMs = idleMs();
  private sampleAtMs = natives.performanceNow();

  constructor(
    readonly size: number,
    private readonly source: SimulationSource,
    private readonly config: SimulationConfig,
    /** The run's estimate of the work left that workers could take (ms). */
    private readonly workLeftMs: () => number = () => Number.POSITIVE_INFINITY,
  ) {}

  /** Whether the pool was started. */
  get started(): boolean {
    return this.pool !== null;
  }

  /** Idle workers that passed the configuration check; asking may start the pool. */
  get available(): number {
    return this.usable() && this.pool !== null ? this.pool.available : 0;
  }

  run<K extends "rootSeed">(
    task: Extract<PoolTask, { kind: K }>,
    options: RunOptions = {},
  ): Promise<TaskOutcome<PoolTaskResults[K]>> {
    if (this.pool === null) return Promise.resolve({ kind: "cancelled" });
    return this.pool.run(task, options);
  }

  /** Gives up the batch's tasks (see `WorkerPool.abandon`). */
  abandon(batch: object): void {
    this.pool?.abandon(batch);
  }

  /** True once the workers' configuration check passed; throws once it failed. Asking may start the pool. */
  usable(): boolean {
    if (this.pool === null) this.startIfSpare();
    const checked = this.checked as { readonly error: unknown } | "passed" | null;
    if (checked !== null && checked !== "passed") throw checked.error;
    return checked === "passed";
  }

  /**
   * Throws if the workers' configuration check failed. A check still running is not waited for:
   * the source passed the same check in this thread, and a pool started near the end of a run
   * would otherwise hold the run up for its whole start-up.
   */
  verdict(): void {
    const checked = this.checked as { readonly error: unknown } | "passed" | null;
    if (checked !== null && checked !== "passed") throw checked.error;
  }

  /** Waits for the workers' configuration check (if the pool started), then `verdict()`. */
  async settle(): Promise<void> {
    await this.settled;
    this.verdict();
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  private startIfSpare(): void {
    const nowMs = natives.performanceNow();
    if (this.policy.minWorkLeftMs > 0 && !(this.workLeftMs() >= this.policy.minWorkLeftMs)) return;
    if (this.policy.minSpareCores > 0) {
      const elapsedMs = nowMs - this.sampleAtMs;
      if (elapsedMs < this.policy.sampleMs) return;
      const idle = idleMs();
      const spareCores = (idle - this.sampleIdleMs) / elapsedMs;
      this.sampleIdleMs = idle;
      this.sampleAtMs = nowMs;
      if (!(spareCores >= this.policy.minSpareCores)) return;
    }
    // Workers at the lowest priority take only CPU this thread leaves: it keeps its own pace
    // even when the machine turns busy after the pool started.
    const pool = new WorkerPool(this.size, { lowPriority: true });
    this.pool = pool;
    poolsStarted++;
    // The workers check that they build this simulation while this thread goes on exploring;
    // roots go to them only once it passed.
    this.settled = checkWorkerConfiguration(pool, this.source, this.config).then(
      () => {
        this.checked = "passed";
      },
      (error: unknown) => {
        this.checked = { error };
      },
    );
  }
}
