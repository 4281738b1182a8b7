/**
 * The JSON file `moonpool run --reporter json` writes and `moonpool merge` reads and writes: one
 * entry per simulation (what ran, its outcome, every failure with its replay command, and the
 * full `SimulationReport.toJSON()`). Schema: `packages/sim/report.schema.json`.
 *
 * Fields that depend on the machine or the wall clock, and therefore differ between two runs of
 * the same seeds (e.g. `--workers 1` vs `--workers 2`, or a sharded run vs an unsharded one):
 * `host` (workers, platform, cpus, wall time of the command) and every `wallTimeMs` /
 * `totalWallTimeMs` inside the simulation reports. Everything else is a function of the seeds.
 */
import { createRequire } from "node:module";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { PACKAGE_VERSION, REPORT_SCHEMA_VERSION, type SimulationReport } from "../runner/report.ts";
import { failingTimelines } from "../runner/failure-groups.ts";
import { formatFailure, LOST_SEED_KINDS, type SeedResult } from "../runner/seed-result.ts";
import type { CoverageEntry } from "./coverage-report.ts";
import { ReportMergeError } from "./errors.ts";
import type { FirstReached, StopReason } from "../runner/pool/pool-campaign.ts";
import { readJsonFile } from "./read-json-file.ts";
import { writeReportFile } from "./report-files.ts";
import { replayCommand, type ReplayCommandContext } from "./replay-command.ts";
import type { SeedPlan } from "./seed-plan.ts";
import type { TerminationSignal } from "./termination.ts";
import type { Isolation } from "../runner/isolation.ts";
import type { ReplayCheckCounts } from "../runner/pool/replay-check.ts";
import type { IndexRange, Shard } from "./shard.ts";

export const RUN_REPORT_KIND = "moonpool-run";

export interface FailureEntry {
  readonly seed: number;
  /** The seed's position in its campaign. */
  readonly index: number;
  /** Exploration recipe of the failing timeline ("" = the root seed itself). */
  readonly recipe: string;
  /** The first failure's kind (`assertion`, `workload`, `hung` for a seed with no engine step for `--hang-timeout`, ...). */
  readonly kind: string;
  readonly message: string;
  /** The command that replays it; "" when the failure does not replay on its own (`notReplaying`). */
  readonly replayCommand: string;
  /** Why the failure does not replay on its own (pool/replay-check.ts); absent when it does. */
  readonly notReplaying?: string;
}

export interface SimulationEntry {
  readonly name: string;
  readonly description: string;
  /** The simulation file, relative to the project root. */
  readonly file: string;
  readonly plan: SeedPlan;
  readonly explore: boolean;
  /** Root seeds per exploration round (null without exploration). */
  readonly exploreRoundRootSeeds: number | null;
  /** The shard this entry ran, or null (the whole campaign, also after a complete merge). */
  readonly shard: Shard | null;
  /** Seed indexes this entry was to run; `report.seeds[].index` says which ran. */
  readonly seedIndexRange: IndexRange;
  readonly status: "passed" | "failed";
  /**
   * Assertions of every kind in the simulation's source that no seed reached (unreachable-family
   * ones aside); absent when none. `kind` is absent in reports written before it was recorded.
   */
  readonly neverEvaluated?: readonly { readonly message: string; readonly kind?: string; readonly where: string }[];
  /** The simulation fails on purpose: `status` is "passed" when a seed failed, "failed" when none did. */
  readonly expectFailure?: boolean;
  /** Why the campaign ended before its plan: --bail, SIGINT; null when it ran to the end. */
  readonly stoppedBy: StopReason | null;
  /** How seeds were kept apart (runner/isolation.ts); absent in reports older than it. */
  readonly isolation?: Isolation;
  /** Failing seeds re-run alone before they were reported (runner/pool/replay-check.ts). */
  readonly replayCheck?: ReplayCheckCounts;
  readonly failures: readonly FailureEntry[];
  /** The seed that first reached each sometimes-family assertion, by seed index (coverage over seeds). */
  readonly sometimesFirstReached: readonly FirstReached[];
  /** `SimulationReport.toJSON()`. */
  readonly report: Record<string, any>;
  /** Code coverage of the system under test (`--coverage`); absent without it. */
  readonly coverage?: CoverageEntry;
}

export interface HostInfo {
  readonly workers: number;
  readonly platform: string;
  readonly arch: string;
  readonly cpus: number;
  readonly wallTimeMs: number;
}

export interface RunReportFile {
  readonly schemaVersion: number;
  readonly kind: typeof RUN_REPORT_KIND;
  readonly packageVersion: string;
  readonly node: string;
  readonly v8: string;
  readonly strictCoverage: boolean;
  /** True when a termination signal stopped the run: simulations not started are absent. */
  readonly interrupted: boolean;
  /** The signal that stopped the run (SIGINT, SIGTERM or SIGHUP); absent when none did. */
  readonly interruptedBy?: TerminationSignal;
  readonly simulations: readonly SimulationEntry[];
  /** Simulation files that failed to load (their simulations did not run); absent when none did. */
  readonly loadFailures?: readonly { readonly file: string; readonly message: string }[];
  /** Machine and wall-clock facts (null in merged files). */
  readonly host: HostInfo | null;
}

/** Whether a report fails the run: a failing seed (a lost one included), a safety violation; coverage only when strict. */
export function simulationFailed(report: SimulationReport, strictCoverage: boolean): boolean {
  if (!report.passed) return true;
  return strictCoverage && (report.coverageViolations.length > 0 || report.convergenceTimeout);
}

/** Seeds whose worker was lost (hung, or the thread died), and seeds that failed on their own. */
export function failureCounts(seeds: readonly Pick<SeedResult, "ok" | "failures">[]): { lost: number; own: number } {
  let lost = 0;
  let own = 0;
  for (const seed of seeds) {
    if (seed.ok) continue;
    if (seed.failures.some((f) => LOST_SEED_KINDS.has(f.kind))) lost++;
    else own++;
  }
  return { lost, own };
}

/**
 * The entry's status. An expected failure (a planted bug) passes when a seed failed on its own and
 * no seed was lost: a seed over its wall-clock limit is a hang, not the planted bug. A shard of
 * an expected failure (`sharded`) passes unless a seed was lost: a block of seeds without the
 * planted bug proves nothing, and `merge` judges the whole campaign.
 */
export function simulationStatus(
  report: SimulationReport,
  strictCoverage: boolean,
  expectFailure: boolean,
  neverEvaluatedCount = 0,
  sharded = false,
): "passed" | "failed" {
  if (!expectFailure)
    return simulationFailed(report, strictCoverage) || (strictCoverage && neverEvaluatedCount > 0)
      ? "failed"
      : "passed";
  const { lost, own } = failureCounts(report.seeds);
  return (own > 0 || sharded) && lost === 0 ? "passed" : "failed";
}

/** One entry per failing timeline: each failing seed's root failures, and each exploration recipe. */
export function failureEntries(report: SimulationReport, context: ReplayCommandContext, name: string): FailureEntry[] {
  return failingTimelines(report).map((t) => ({
    seed: t.seed,
    index: t.index,
    recipe: t.recipe,
    kind: t.failure.kind,
    message: formatFailure(t.failure),
    ...(t.failure.notReplaying === undefined
      ? { replayCommand: replayCommand(context, name, t.seed, t.recipe) }
      : { replayCommand: "", notReplaying: t.failure.notReplaying }),
  }));
}

const bigintAsString = (_key: string, value: unknown): unknown =>
  typeof value === "bigint" ? value.toString() : value;

/** JSON text of a report file: 2-space indented, a final newline, BigInt values as decimal strings. */
export function stringifyRunReport(file: RunReportFile): string {
  return JSON.stringify(file, bigintAsString, 2) + "\n";
}

/**
 * The text of `stringifyRunReport(value)` in pieces, never as one string: a campaign of a few
 * hundred thousand seeds is past the longest string V8 can make. Same rules as JSON.stringify
 * (toJSON, undefined and functions skipped in objects and written as null in arrays).
 */
export function runReportPieces(file: RunReportFile): Generator<string> {
  return jsonPieces("", file, "");
}

/** Estimated characters above which a container is written piece by piece rather than by JSON.stringify. */
const WHOLE_CONTAINER_CHARS = 1 << 20;

class TooLong extends Error {}

/**
 * `value` as JSON.stringify writes it at `indent`, or null when it is longer than about
 * WHOLE_CONTAINER_CHARS: one native call for a small container (a seed record) instead of a
 * generator step per leaf.
 */
function wholeContainer(value: object, indent: string): string | null {
  let estimate = 0;
  const counting = (key: string, v: unknown): unknown => {
    estimate += key.length + (typeof v === "string" ? v.length : 8);
    if (estimate > WHOLE_CONTAINER_CHARS) throw new TooLong();
    return bigintAsString(key, v);
  };
  try {
    const text = JSON.stringify(value, counting, 2);
    return indent === "" ? text : text.replaceAll("\n", `\n${indent}`);
  } catch (error) {
    if (error instanceof TooLong) return null;
    throw error;
  }
}

function* jsonPieces(key: string, value: unknown, indent: string): Generator<string> {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  value = bigintAsString(key, value);
  if (value === null || typeof value !== "object") {
    yield JSON.stringify(value) ?? "null";
    return;
  }
  // JSON.stringify would call a toJSON the first call returned; the pieces below do not.
  if (typeof (value as { toJSON?: unknown }).toJSON !== "function") {
    const whole = wholeContainer(value, indent);
    if (whole !== null) return yield whole;
  }
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) return yield "[]";
    yield "[\n";
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      yield i === 0 ? inner : `,\n${inner}`;
      if (item === undefined || typeof item === "function" || typeof item === "symbol") yield "null";
      else yield* jsonPieces(String(i), item, inner);
    }
    return yield `\n${indent}]`;
  }
  let first = true;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
    yield first ? `{\n${inner}${JSON.stringify(k)}: ` : `,\n${inner}${JSON.stringify(k)}: `;
    first = false;
    yield* jsonPieces(k, v, inner);
  }
  yield first ? "{}" : `\n${indent}}`;
}

function* withFinalNewline(file: RunReportFile): Generator<string> {
  yield* runReportPieces(file);
  yield "\n";
}

/**
 * Writes a report file to `target` as it is serialized (the same bytes as `stringifyRunReport`),
 * atomically: a failed write leaves no half-written report under `target` (`report-files.ts`).
 */
export async function writeRunReport(file: RunReportFile, target: string): Promise<void> {
  await writeReportFile(target, withFinalNewline(file));
}

export async function readRunReport(filePath: string): Promise<RunReportFile> {
  let parsed: any;
  try {
    parsed = await readJsonFile(filePath);
  } catch (error) {
    throw new ReportMergeError(`${filePath}: not a readable JSON report (${(error as Error).message})`);
  }
  if (parsed?.kind !== RUN_REPORT_KIND || !Array.isArray(parsed.simulations)) {
    throw new ReportMergeError(
      `${filePath}: not a moonpool run report (expected "kind": "${RUN_REPORT_KIND}"; write one with moonpool run --reporter json)`,
    );
  }
  if (parsed.schemaVersion !== REPORT_SCHEMA_VERSION) {
    throw new ReportMergeError(
      `${filePath}: report schema version ${String(parsed.schemaVersion)}, this moonpool (${PACKAGE_VERSION}) reads version ${REPORT_SCHEMA_VERSION}: re-run that shard with this version`,
    );
  }
  const problems = reportSchemaErrors(parsed);
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join("; ");
    throw new ReportMergeError(
      `${filePath}: not a valid moonpool run report (${shown}${problems.length > 5 ? `; and ${problems.length - 5} more` : ""}): the file is damaged or was edited; write it again with moonpool run --reporter json`,
    );
  }
  return parsed as RunReportFile;
}

let validateReport: ValidateFunction | null = null;

/** Where `value` breaks report.schema.json, one line per problem (empty when it is valid). */
export function reportSchemaErrors(value: unknown): string[] {
  if (validateReport === null) {
    const schema = createRequire(import.meta.url)("../../report.schema.json") as object;
    validateReport = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  }
  if (validateReport(value)) return [];
  return (validateReport.errors ?? []).map(
    (e) => `${e.instancePath === "" ? "the report" : e.instancePath} ${e.message ?? "is invalid"}`,
  );
}
