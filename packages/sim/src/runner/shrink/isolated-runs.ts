/**
 * Shrink candidates run in a worker thread, each under the hang limit: a candidate stuck in
 * synchronous code (a state the original run never reached) costs one run, not the search. The
 * worker is terminated once no engine step started for the limit (progress-watchdog.ts; a slow
 * candidate that keeps stepping is never stopped; termination stops synchronous code too) and a fresh one
 * takes the next candidate. With `freshRealmPerRun` (seed isolation "seed", runner/isolation.ts)
 * every candidate gets a worker of its own, the next one started as soon as a run ends, so no
 * module state carries from one candidate to the next.
 */
import { Worker } from "node:worker_threads";
import { newProgressBuffer, progressCellsOf } from "../../engine/progress.ts";
import { formatHang, watchTask } from "../pool/progress-watchdog.ts";
import type { SimulationSource } from "../simulation-source.ts";
import type { MeasuredRun } from "./measure.ts";

const BOOTSTRAP_URL = new URL("./candidate-bootstrap.mjs", import.meta.url);

export interface CandidateTask {
  readonly id: number;
  readonly seed: number;
  readonly recipe: string;
  /** Overrides text (`formatOverrides`). */
  readonly overrides: string;
}

export type CandidateReply =
  /** The simulation's module loaded: runs (and their hang watchdogs) start now. */
  | { readonly kind: "ready" }
  | { readonly kind: "loadError"; readonly message: string }
  | { readonly id: number; readonly kind: "done"; readonly run: MeasuredRun }
  | { readonly id: number; readonly kind: "error"; readonly message: string };

/** What a candidate worker is given: the simulation, and where its engines publish their steps. */
export interface CandidateWorkerData {
  readonly source: SimulationSource;
  readonly progress: SharedArrayBuffer;
}

/** A candidate measured, or why it could not be: hung (no step for the limit), or its run or worker failed. */
export type IsolatedOutcome =
  | { readonly kind: "measured"; readonly run: MeasuredRun }
  | { readonly kind: "hung" | "error"; readonly message: string };

export class IsolatedRuns {
  private worker: Worker | null = null;
  /** Resolves with null once the worker loaded the simulation, or with why it could not. */
  private ready: Promise<string | null> = Promise.resolve(null);
  private nextId = 0;
  private readonly progressBuffer = newProgressBuffer();
  private readonly progress = progressCellsOf(this.progressBuffer);

  constructor(
    private readonly source: SimulationSource,
    /** Hang limit of one run: no engine step for this long (before its first, at least the default). */
    readonly hangTimeoutMs: number,
    /** A fresh worker for every run. */
    private readonly freshRealmPerRun = false,
  ) {}

  /** The worker, started (and its module loading) if there is none. */
  private start(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(BOOTSTRAP_URL, {
      workerData: { source: this.source, progress: this.progressBuffer } satisfies CandidateWorkerData,
    });
    this.worker = worker;
    this.ready = new Promise((resolve) => {
      const onReply = (reply: CandidateReply) => {
        if (reply.kind === "ready") resolve(null);
        else if (reply.kind === "loadError") resolve(`the simulation did not load: ${reply.message}`);
        else return;
        worker.off("message", onReply).off("error", onFailure);
      };
      const onFailure = (error: Error) => resolve(`its worker failed: ${error.message}`);
      worker.on("message", onReply).on("error", onFailure);
    });
    return worker;
  }

  async run(seed: number, recipe: string, overrides: string): Promise<IsolatedOutcome> {
    const worker = this.start();
    const notReady = await this.ready;
    if (notReady !== null) {
      await this.close();
      return { kind: "error", message: notReady };
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      const settle = (outcome: IsolatedOutcome, lost: boolean) => {
        watchdog.stop();
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        if ((lost || this.freshRealmPerRun) && this.worker === worker) {
          this.worker = null;
          void worker.terminate();
          // The next candidate's realm loads while the shrinker looks at this outcome.
          if (!lost) this.start();
        }
        resolve(outcome);
      };
      // One worker at a time writes these cells, and it is idle between candidates.
      const watchdog = watchTask(this.progress, this.hangTimeoutMs, (hang) =>
        settle({ kind: "hung", message: `the run ${formatHang(hang)}` }, true),
      );
      const onMessage = (reply: CandidateReply) => {
        if (!("id" in reply) || reply.id !== id) return;
        settle(reply.kind === "done" ? { kind: "measured", run: reply.run } : reply, false);
      };
      const onError = (error: Error) => settle({ kind: "error", message: `its worker failed: ${error.message}` }, true);
      const onExit = (code: number) => settle({ kind: "error", message: `its worker exited with code ${code}` }, true);
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
      worker.postMessage({ id, seed, recipe, overrides } satisfies CandidateTask);
    });
  }

  /** Terminates the worker (the next `run` starts a new one). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }
}
