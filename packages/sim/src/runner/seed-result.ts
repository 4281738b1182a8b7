/** What one seed produced: the unit the report, the explorer and the CLI aggregate. */

export type SeedFailureKind =
  | "assertion" // an always-family assertion was violated
  | "invariant" // an invariant's observe() threw
  | "workload" // a workload's run() rejected
  | "setup" // a workload's setup() rejected
  | "check" // a workload's check() rejected
  | "process" // a process's run() rejected (other than by shutdown)
  | "task" // a spawned task's body rejected (unless the simulation allows task failures)
  | "deadlock" // nothing left to do while workloads still waited
  | "runTimeBudget" // workloads still running after the simulated run-time budget
  | "liveness" // a liveness property did not converge within its time after the chaos window
  | "busyLoop" // too many steps without simulated time advancing
  | "settleTimeout" // the world did not settle after processes stopped
  | "escape" // simulated code called a real clock, timer or unseeded randomness
  | "unhandledRejection" // a promise rejected in simulated code and nobody handled it
  | "faultInjector" // a fault injector (or its factory) failed
  | "uncaughtException"
  | "hung" // no engine step started for the hang limit; its worker was terminated
  | "timeout" // reports from before progress-based hang detection: the seed ran past a wall-clock limit
  | "workerCrash"; // the worker running the seed died (out of memory, process.exit in simulated code)

/** Failure kinds of a seed whose worker was lost: nothing of the seed's own behaviour came back. */
export const LOST_SEED_KINDS: ReadonlySet<SeedFailureKind> = new Set<SeedFailureKind>([
  "hung",
  "timeout",
  "workerCrash",
]);

export interface SeedFailure {
  readonly kind: SeedFailureKind;
  readonly message: string;
  /** Who failed (actor name) when known. */
  readonly actor?: string;
  /** Simulated time of the failure in ms. */
  readonly timeMs: number;
  readonly stack?: string;
  /** For assertion failures: the violated assertion's message (its identity); for liveness ones, the property's name. */
  readonly property?: string;
  /** For liveness failures: simulated ms waited after the chaos window's end before the verdict. */
  readonly waitedMs?: number;
  /** For failures found by exploration: the recipe of the failing timeline. */
  readonly recipe?: string;
  /** For failures found by exploration: the trace hash of the failing timeline (`recipe`'s). */
  readonly traceHash?: string;
  /**
   * Set when the failure's timeline, run alone the way `moonpool replay` runs it, hashed
   * differently: why, and where the runs part. Such a failure has no replay command.
   */
  readonly notReplaying?: string;
}

import type { Discovery } from "../chaos/assertions/index.ts";
import type { MetricSeriesReport } from "../world/metrics/store.ts";
import type { SeedChaosRecord } from "./seed-chaos.ts";
export type { Discovery };

export interface SeedResult {
  readonly seed: number;
  readonly ok: boolean;
  readonly failures: readonly SeedFailure[];
  readonly simulatedTimeMs: number;
  readonly eventsProcessed: number;
  readonly wallTimeMs: number;
  /** 8 hex digits: the hash of every step and every captured trace fact. */
  readonly traceHash: string;
  /** Sim-stream draws made in the seed. */
  readonly simDraws: number;
  /** Draws of the `sim` and `schedule` streams together: the unit of tagged recipe counts. */
  readonly recipeDraws?: number;
  readonly discoveries: readonly Discovery[];
  /** The chaos the seed ran with (network mode, swarm mask, every drawn value, chaos window). */
  readonly chaos: SeedChaosRecord;
  /**
   * For an explored root whose own timeline passed: the recipe of the first failing timeline,
   * which `simulatedTimeMs`, `eventsProcessed` and `traceHash` then describe.
   */
  readonly recipe?: string;
  /** The seed's metric series, downsampled (absent when nothing recorded metrics). */
  readonly metrics?: readonly MetricSeriesReport[];
  /** Text the simulation attached (`ctx.attach`), e.g. graphs of its metrics; absent when none. */
  readonly attachments?: readonly SeedAttachment[];
  /** The sizes workloads asked for with `ctx.size(name, n)` and got, by name; absent when none asked. */
  readonly sizes?: Readonly<Record<string, number>>;
}

/** A named block of text a seed produced for people to read (a graph, a table). */
export interface SeedAttachment {
  readonly name: string;
  readonly text: string;
}

export function formatFailure(f: SeedFailure): string {
  return `[${f.kind}] ${f.message}${f.actor !== undefined ? ` (actor ${f.actor})` : ""} at ${f.timeMs.toFixed(3)} ms`;
}
