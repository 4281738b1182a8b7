/**
 * What the main thread and pool workers say to each other: structured-clone-safe data only
 * (closures cannot cross threads, so a task names its simulation by `SimulationSource`).
 */
import type { AssertionTableState } from "../../chaos/assertions/index.ts";
import type { SingleSeedOutcome } from "../campaign.ts";
import type { BlockCoverage } from "../coverage/block-coverage.ts";
import type { ConfigFingerprint } from "../config-fingerprint.ts";
import type { SeedChaosRecord } from "../seed-chaos.ts";
import type { Hang } from "./progress-watchdog.ts";
import type { SeedResult } from "../seed-result.ts";
import type { TraceEvent } from "../../world/trace-log.ts";
import type { ExplorationConfig } from "../../explore/config.ts";
import type { DrawTrail } from "../draw-trail.ts";
import type { BuildOverrides, SimulationSource } from "../simulation-source.ts";

export type PoolTask =
  /**
   * One root seed in a table starting from `baseTable` (null: empty), explored in depth in the
   * worker when the configuration enables exploration (`moonpool run`). Discoveries are dropped
   * from the result: they steered the exploration in the worker, the report does not use them.
   */
  | {
      readonly kind: "rootSeed";
      readonly source: SimulationSource;
      readonly overrides: BuildOverrides;
      readonly seed: number;
      readonly baseTable: AssertionTableState | null;
      /**
       * Explore the root with these settings (the builder's `enableExploration`, which stays on
       * the main thread and so is not part of what the source builds); absent: the source's own;
       * null: not explored.
       */
      readonly exploration?: ExplorationConfig | null;
      /** Run this timeline of the seed (a recipe, "" for the root timeline), never explored (the adaptive campaign). */
      readonly recipe?: string;
      /** Return the timeline's discoveries (the adaptive campaign's frontier needs them). */
      readonly keepDiscoveries?: boolean;
      /** Collect block coverage of the user's code under this project root (absent: none). */
      readonly coverageRoot?: string;
      /** Keep the draw trail of the root timeline, returned when the seed fails (the replay check). */
      readonly recordDraws?: boolean;
    }
  /**
   * One timeline run the way `moonpool replay` runs it (seed and recipe, no exploration), in a
   * fresh realm: the replay check of a failure (runner/pool/replay-check.ts).
   */
  | {
      readonly kind: "replayCheck";
      readonly source: SimulationSource;
      readonly overrides: BuildOverrides;
      readonly seed: number;
      readonly recipe: string;
      /** Capture the JavaScript stack of this sim draw (null: none). */
      readonly stackAtDraw: number | null;
    }
  /**
   * One timeline run again for a page (`--reporter html`, `shrink --html`), never explored, with
   * its trace events from `debug` up (kept aside below the simulation's level, so it hashes as it
   * ran): in a worker, so a timeline that aborts, exits or hangs fails the page, not the command.
   */
  | {
      readonly kind: "timeline";
      readonly source: SimulationSource;
      readonly overrides: BuildOverrides;
      readonly seed: number;
      readonly recipe: string;
      /** A shrunk run's overrides (`formatOverrides` text), "" for none. */
      readonly timelineOverrides: string;
    }
  /** Loads the source and returns the fingerprint of its configuration (checked before the first timeline). */
  | { readonly kind: "fingerprint"; readonly source: SimulationSource }
  /** The generated source of the covered scripts (for the coverage report), null for one not found. */
  | {
      readonly kind: "coverageSources";
      readonly source: SimulationSource;
      readonly coverageRoot: string;
      readonly urls: readonly string[];
    };

export type PoolTaskKind = PoolTask["kind"];

/** A timeline run alone (the replay check). */
export interface ReplayCheckResult {
  readonly traceHash: string;
  readonly ok: boolean;
  readonly draws: DrawTrail;
  /** The stack of draw `stackAtDraw`, when asked for and reached. */
  readonly stack?: string;
}

/** What each kind of task produces. */
export interface PoolTaskResults {
  /**
   * `coverage`: the seed's block coverage, present when the task asked for it; `draws`: the root
   * timeline's draw trail, present when asked for and the seed failed.
   */
  readonly rootSeed: SingleSeedOutcome & { readonly coverage?: BlockCoverage; readonly draws?: DrawTrail };
  readonly replayCheck: ReplayCheckResult;
  /** `events`: the TraceEvents' fields (structured clone drops their class). */
  readonly timeline: {
    readonly result: SeedResult;
    readonly events: readonly Pick<TraceEvent, "seq" | "timeMs" | "source" | "level" | "name" | "fields">[];
  };
  readonly fingerprint: ConfigFingerprint;
  readonly coverageSources: Record<string, string | null>;
}

export type PoolTaskMessage = PoolTask & { readonly id: number };

export type WorkerReply =
  /** Sent once, when the worker has loaded the engine and listens for tasks (hang watchdogs start after it). */
  | { readonly kind: "ready" }
  /** The running root seed drew its chaos: kept so a seed that then hangs or crashes reports it. */
  | { readonly id: number; readonly kind: "chaos"; readonly chaos: SeedChaosRecord }
  | { readonly id: number; readonly kind: "done"; readonly value: PoolTaskResults[PoolTaskKind] }
  /** The task could not run (the source did not load, build() threw, an internal error). */
  | {
      readonly id: number;
      readonly kind: "error";
      readonly name: string;
      readonly message: string;
      readonly stack?: string;
    };

/** What `WorkerPool.run` resolves to (it never rejects). */
export type TaskOutcome<T> =
  | { readonly kind: "done"; readonly outcome: T }
  /** `name` is the error's class name (e.g. "InvalidConfiguration" for a bad source). */
  | { readonly kind: "error"; readonly name: string; readonly message: string; readonly stack?: string }
  /** The worker died while running the task (out of memory, `process.exit`); it was replaced. */
  | {
      readonly kind: "crashed";
      readonly cause: string;
      readonly wallTimeMs: number;
      readonly chaos: SeedChaosRecord | null;
    }
  /** No engine step started for the hang limit; its worker was terminated and replaced. */
  | { readonly kind: "hung"; readonly hang: Hang; readonly wallTimeMs: number; readonly chaos: SeedChaosRecord | null }
  /** Cancelled before it finished (the campaign stopped, or the pool closed). */
  | { readonly kind: "cancelled" };
