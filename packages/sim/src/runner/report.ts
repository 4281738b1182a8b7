/**
 * The campaign report: counts, per-seed metrics, assertion details
 * with PASS/FAIL/MISS, violations, coverage gaps, buckets, saturation. `print()` writes the
 * readable summary to stderr, `toJSON()` the versioned schema, `assertPassed()` throws with the
 * summary in any test runner.
 */
import { MoonpoolError } from "@moonpool/core";
import type { SteppingMode } from "../engine/engine.ts";
import {
  AssertionTable,
  type AssertionDetail,
  type AssertionTableState,
  type BucketSiteSummary,
  type AssertionOverflow,
} from "../chaos/assertions/index.ts";
import { formatFailure, type SeedResult } from "./seed-result.ts";
import { colorEnabled, formatText, formatPretty, type RenderOptions } from "./report-format.ts";
import type { CampaignBudgetReport, ExplorationReport } from "../explore/index.ts";
import { groupFailures } from "./failure-groups.ts";
import { userFrames } from "./source-location.ts";

/**
 * Version of the `toJSON()` schema; bump on any incompatible change.
 * 2: `seeds[].index` (the seed's position in its campaign) and `assertionTable` (the table
 *    snapshot that `moonpool merge` absorbs); `node`/`v8` are the versions the seeds ran on.
 * 3: the run report's `simulations[].sometimesFirstReached` (the seed that first reached each
 *    sometimes-family assertion: coverage over seeds).
 * The schema is `packages/sim/report.schema.json`.
 */
export const REPORT_SCHEMA_VERSION = 4;
export const PACKAGE_VERSION = "0.1.0";

/** A plateau signal: assertion slots reached, or blocks of the user's code covered (`moonpool run --coverage`). */
export type PlateauSignal = "assertionCoverage" | "codeCoverage";

export interface SaturationReport {
  /** The first signal of `signals` (kept for older readers). */
  readonly signal: PlateauSignal;
  readonly saturated: boolean;
  readonly sometimesHit: number;
  readonly sometimesTotal: number;
  /** Consecutive seeds without a new sometimes/reachable assertion reached. */
  readonly plateauSeeds: number;
  readonly requiredQuietSeeds: number;
  /** `assertSometimesEach` buckets seen (part of the plateau signal); absent in older reports. */
  readonly eachBuckets?: number;
  /** Seeds the rule spends before coverage may stop it; absent in older reports. */
  readonly minSeeds?: number;
  /** One line: why the campaign stopped (or, mid-run, where the rule stands). */
  readonly stopReason?: string;
  /** The signals whose growth counted as progress; absent in older reports (assertion coverage only). */
  readonly signals?: readonly PlateauSignal[];
  /** With code coverage: characters of the user's code covered so far, and seeds since that last grew. */
  readonly codeCoveredChars?: number;
  readonly codePlateauSeeds?: number;
  /** Once saturated: the signal(s) that went quiet last, i.e. whose plateau stopped the campaign. */
  readonly stoppedBy?: readonly PlateauSignal[];
}

export interface CampaignMetrics {
  readonly wallTimeMs: number;
  readonly simulatedTimeMs: number;
  readonly eventsProcessed: number;
}

export type { CampaignBudgetReport, ExplorationReport };

export interface ReportInput {
  readonly results: readonly SeedResult[];
  readonly table: AssertionTable;
  readonly convergenceTimeout: boolean;
  readonly saturation: SaturationReport | null;
  readonly wallTimeMs: number;
  readonly steppingMode: SteppingMode;
  readonly exploration?: ExplorationReport | null;
  /** How an adaptive campaign split its budget (null or absent: not an adaptive campaign). */
  readonly campaign?: CampaignBudgetReport | null;
  /** Each seed's position in its campaign (default: its position in `results`). */
  readonly seedIndexes?: readonly number[];
  /** The Node and V8 versions the seeds ran on (default: this process's). */
  readonly runtime?: RuntimeVersions;
  /** Where the seeds' module state lived, when one realm held them all (an in-thread run). */
  readonly isolation?: ReportIsolation | null;
}

/**
 * An in-thread run's isolation: every seed in the calling thread's realm, so module state one
 * seed leaves reaches the seeds after it (runner/isolation.ts; `moonpool run` isolates seeds).
 */
export interface ReportIsolation {
  readonly mode: "shared";
  readonly realm: "in-thread";
}

/** The isolation of every run in the calling thread. */
export const IN_THREAD_ISOLATION: ReportIsolation = { mode: "shared", realm: "in-thread" };

export interface RuntimeVersions {
  readonly node: string;
  readonly v8: string;
}

/** `ReportInput` with the table as a snapshot (seeds run in other threads or read from JSON). */
export interface ReportParts extends Omit<ReportInput, "table"> {
  readonly table: AssertionTableState;
}

/** Thrown by `report.assertPassed()`; its message is the readable report. */
export class SimulationFailed extends MoonpoolError {}

export class SimulationReport {
  readonly iterations: number;
  readonly successfulRuns: number;
  readonly failedRuns: number;
  /** Summed over successful seeds only. */
  readonly metrics: CampaignMetrics;
  /** Every seed in run order with its metrics, trace hash and failures. */
  readonly seeds: readonly SeedResult[];
  readonly seedsUsed: readonly number[];
  readonly seedsFailing: readonly number[];
  readonly assertionResults: Readonly<Record<string, { totalChecks: number; successes: number }>>;
  readonly assertionViolations: readonly string[];
  readonly coverageViolations: readonly string[];
  readonly assertionDetails: readonly AssertionDetail[];
  readonly bucketSummaries: readonly BucketSiteSummary[];
  /** What did not fit in the bounded assertion tables (never silent). */
  readonly tableOverflow: AssertionOverflow;
  readonly convergenceTimeout: boolean;
  readonly saturation: SaturationReport | null;
  readonly exploration: ExplorationReport | null;
  /** How an adaptive campaign split its budget and why it stopped; null for any other campaign. */
  readonly campaign: CampaignBudgetReport | null;
  /** Wall time of the whole campaign, failed seeds included. */
  readonly totalWallTimeMs: number;
  readonly steppingMode: SteppingMode;
  /** Position of each seed of `seeds` in its campaign (sharded and merged reports keep the originals). */
  readonly seedIndexes: readonly number[];
  readonly runtime: RuntimeVersions;
  /** The table snapshot `toJSON()` carries so that reports can be merged. */
  readonly tableState: AssertionTableState;
  /**
   * "shared" (in-thread) for a run in the calling thread, whose seeds share its realm; null for
   * seeds run on workers (the command's JSON entry records their mode) and reports read back.
   */
  readonly isolation: ReportIsolation | null;

  /** A report of seeds whose assertion table arrives as a snapshot. */
  static fromParts(parts: ReportParts): SimulationReport {
    return new SimulationReport({ ...parts, table: AssertionTable.fromSnapshot(parts.table) });
  }

  /**
   * Reads back what `toJSON()` wrote (after `JSON.parse`). Seeds come back without their
   * discoveries (not serialised); NaN distances, written as null by JSON, come back as NaN.
   */
  static fromJSON(json: Record<string, any>): SimulationReport {
    if (json.schemaVersion !== REPORT_SCHEMA_VERSION) {
      throw new MoonpoolError(
        `report schema version ${String(json.schemaVersion)} is not supported (this is @moonpool/sim ${PACKAGE_VERSION}, schema ${REPORT_SCHEMA_VERSION}): re-run the campaign with this version`,
      );
    }
    const seeds = json.seeds as Record<string, any>[];
    return SimulationReport.fromParts({
      results: seeds.map(({ index: _index, ...seed }) => ({ ...seed, discoveries: [] }) as unknown as SeedResult),
      seedIndexes: seeds.map((s) => s.index as number),
      table: tableStateFromJSON(json.assertionTable),
      convergenceTimeout: json.convergenceTimeout === true,
      saturation: json.saturation ?? null,
      wallTimeMs: json.totalWallTimeMs,
      steppingMode: json.steppingMode,
      exploration: json.exploration ?? null,
      campaign: json.campaign ?? null,
      runtime: { node: json.node, v8: json.v8 },
    });
  }

  constructor(input: ReportInput) {
    const results = input.results;
    this.seeds = results;
    this.iterations = results.length;
    const ok = results.filter((r) => r.ok);
    this.successfulRuns = ok.length;
    this.failedRuns = results.length - ok.length;
    this.metrics = {
      wallTimeMs: ok.reduce((s, r) => s + r.wallTimeMs, 0),
      simulatedTimeMs: ok.reduce((s, r) => s + r.simulatedTimeMs, 0),
      eventsProcessed: ok.reduce((s, r) => s + r.eventsProcessed, 0),
    };
    this.seedsUsed = results.map((r) => r.seed);
    this.seedsFailing = results.filter((r) => !r.ok).map((r) => r.seed);
    this.assertionResults = input.table.results();
    this.assertionViolations = input.table.assertionViolations();
    this.coverageViolations = input.table.coverageViolations();
    this.assertionDetails = input.table.details();
    this.bucketSummaries = input.table.bucketSummaries();
    this.tableOverflow = input.table.overflow();
    this.convergenceTimeout = input.convergenceTimeout;
    this.saturation = input.saturation;
    this.exploration = input.exploration ?? null;
    this.campaign = input.campaign ?? null;
    this.totalWallTimeMs = input.wallTimeMs;
    this.steppingMode = input.steppingMode;
    this.seedIndexes = input.seedIndexes !== undefined ? input.seedIndexes.slice() : results.map((_, i) => i);
    if (this.seedIndexes.length !== results.length)
      throw new RangeError(`seedIndexes has ${this.seedIndexes.length} entries for ${results.length} seeds`);
    this.runtime = input.runtime ?? { node: process.versions.node, v8: process.versions.v8 };
    this.tableState = input.table.snapshot();
    this.isolation = input.isolation ?? null;
  }

  /** Percentage of successful seeds (0-100). */
  successRate(): number {
    return this.iterations === 0 ? 0 : (100 * this.successfulRuns) / this.iterations;
  }

  averageWallTimeMs(): number {
    return this.successfulRuns === 0 ? 0 : this.metrics.wallTimeMs / this.successfulRuns;
  }

  averageSimulatedTimeMs(): number {
    return this.successfulRuns === 0 ? 0 : this.metrics.simulatedTimeMs / this.successfulRuns;
  }

  averageEventsProcessed(): number {
    return this.successfulRuns === 0 ? 0 : this.metrics.eventsProcessed / this.successfulRuns;
  }

  /** True when no seed failed and no safety assertion was violated. */
  get passed(): boolean {
    return this.failedRuns === 0 && this.assertionViolations.length === 0;
  }

  /** Failures of one seed, formatted. */
  failuresOf(seed: number): string[] {
    return (this.seeds.find((r) => r.seed === seed)?.failures ?? []).map(formatFailure);
  }

  /** The plain-text report (no colours). */
  toString(options: RenderOptions = {}): string {
    return formatText(this, options);
  }

  /** Writes the readable summary to stderr (coloured on a TTY unless NO_COLOR is set, or with FORCE_COLOR). */
  print(stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr, options: RenderOptions = {}): void {
    stream.write(colorEnabled(stream) ? formatPretty(this, options) : formatText(this, options));
  }

  /**
   * Throws `SimulationFailed` with the report when a seed failed or a safety assertion was
   * violated. With `{ strictCoverage: true }` also on coverage gaps and convergence timeout
   * (the CI policy for campaigns that establish coverage).
   */
  assertPassed(options: { strictCoverage?: boolean } = {}): void {
    const coverageFailed =
      options.strictCoverage === true && (this.coverageViolations.length > 0 || this.convergenceTimeout);
    if (this.passed && !coverageFailed) return;
    const error = new SimulationFailed(`simulation failed\n${formatText(this)}`);
    // Test runners point their code frame at the top of the stack: make it the user's line of the
    // earliest failure rather than this method.
    const first = groupFailures(this)[0]?.timelines[0];
    const frames = userFrames(first?.failure.stack);
    if (frames.length > 0) error.stack = `${error.name}: ${error.message}\n${frames.join("\n")}`;
    throw error;
  }

  /** The versioned, stable JSON schema: the unit of merge, replay and visual reports. */
  toJSON(): Record<string, unknown> {
    return {
      schemaVersion: REPORT_SCHEMA_VERSION,
      packageVersion: PACKAGE_VERSION,
      node: this.runtime.node,
      v8: this.runtime.v8,
      steppingMode: this.steppingMode,
      iterations: this.iterations,
      successfulRuns: this.successfulRuns,
      failedRuns: this.failedRuns,
      successRate: this.successRate(),
      metrics: this.metrics,
      totalWallTimeMs: this.totalWallTimeMs,
      seedsUsed: this.seedsUsed,
      seedsFailing: this.seedsFailing,
      seeds: this.seeds.map((r, i) => ({
        index: this.seedIndexes[i],
        seed: r.seed,
        ok: r.ok,
        simulatedTimeMs: r.simulatedTimeMs,
        eventsProcessed: r.eventsProcessed,
        wallTimeMs: r.wallTimeMs,
        traceHash: r.traceHash,
        simDraws: r.simDraws,
        failures: r.failures,
        chaos: r.chaos,
        ...(r.recipe !== undefined ? { recipe: r.recipe } : {}),
        ...(r.metrics !== undefined ? { metrics: r.metrics } : {}),
        ...(r.attachments !== undefined ? { attachments: r.attachments } : {}),
        ...(r.sizes !== undefined ? { sizes: r.sizes } : {}),
      })),
      assertionResults: this.assertionResults,
      assertionViolations: this.assertionViolations,
      coverageViolations: this.coverageViolations,
      assertionDetails: this.assertionDetails,
      bucketSummaries: this.bucketSummaries,
      tableOverflow: this.tableOverflow,
      convergenceTimeout: this.convergenceTimeout,
      saturation: this.saturation,
      exploration: this.exploration,
      campaign: this.campaign,
      // NaN (a numeric site never comparable) becomes null in JSON; fromJSON maps it back.
      assertionTable: this.tableState,
    };
  }
}

/** An `AssertionTableState` read from JSON: null distances (JSON's NaN) back to NaN. */
function tableStateFromJSON(state: AssertionTableState): AssertionTableState {
  return {
    ...state,
    sites: state.sites.map((site) => ({
      ...site,
      bestDistance: site.bestDistance ?? Number.NaN,
      bestLeft: site.bestLeft ?? Number.NaN,
    })),
  };
}
