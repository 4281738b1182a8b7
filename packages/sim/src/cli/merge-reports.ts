/**
 * Combines the JSON reports of shards (`moonpool run --shard i/n --reporter json`) into the
 * report one machine would have written. Per simulation, shards are taken in shard order, which
 * is seed order (shards are contiguous blocks of seed indexes), and their assertion tables are
 * absorbed in that order: the very sequence of absorbs an unsharded run performs, so coverage,
 * watermarks, buckets and first failures come out the same. The output depends only on the set
 * of inputs, not on their order on the command line. Wall-clock totals add up; `host` is null.
 */
import { mergeCoverageEntries } from "./coverage-report.ts";
import { AssertionTable } from "../chaos/assertions/index.ts";
import { SimulationReport } from "../runner/report.ts";
import { ReportMergeError } from "./errors.ts";
import { mergeExplorationReports } from "../explore/index.ts";
import { sortFirstReached, type FirstReached } from "../runner/pool/pool-campaign.ts";
import type { ExplorationReport } from "../explore/index.ts";
import { RUN_REPORT_KIND, simulationStatus, type RunReportFile, type SimulationEntry } from "./run-report.ts";
import { planSize } from "./seed-plan.ts";
import { shardRange, type Shard } from "./shard.ts";

export interface NamedReport {
  readonly path: string;
  readonly file: RunReportFile;
}

function sameEverywhere<T>(
  inputs: readonly NamedReport[],
  pick: (f: RunReportFile) => T,
  what: string,
  why: string,
): T {
  const first = pick(inputs[0]!.file);
  for (const input of inputs) {
    const value = pick(input.file);
    if (JSON.stringify(value) !== JSON.stringify(first)) {
      throw new ReportMergeError(
        `cannot merge: ${what} differs (${JSON.stringify(first)} in ${inputs[0]!.path}, ${JSON.stringify(value)} in ${input.path}); ${why}`,
      );
    }
  }
  return first;
}

interface ShardEntry {
  readonly path: string;
  readonly shard: Shard;
  readonly entry: SimulationEntry;
}

/** `#0, #1, #5` (at most 20, then how many more). */
function indexList(indexes: readonly number[]): string {
  const shown = indexes.slice(0, 20).map((i) => `#${i}`);
  return shown.join(", ") + (indexes.length > 20 ? ` and ${indexes.length - 20} more` : "");
}

/**
 * Refuses a shard that does not hold exactly the seeds of its plan: its block of seed indexes
 * (`shardRange` of the plan), each once, every one of them unless the shard says it stopped
 * early (--bail, a signal) or ran until coverage was stable (`maxSeeds` is only a cap), and then
 * a prefix of the block, as such a campaign leaves.
 */
function checkShardSeeds(name: string, s: ShardEntry): void {
  const where = `simulation '${name}': ${s.path} (shard ${s.shard.index}/${s.shard.count})`;
  const again = "the report was edited or damaged: run that shard again";
  const expected = shardRange(planSize(s.entry.plan), s.shard);
  const block = `#${expected.start}..#${expected.end - 1}`;
  const range = s.entry.seedIndexRange;
  if (range.start !== expected.start || range.end !== expected.end)
    throw new ReportMergeError(
      `${where} says it ran seeds #${range.start}..#${range.end - 1}, but its plan gives that shard ${block}; ${again}`,
    );
  const seeds = (s.entry.report.seeds as readonly { index: number }[]).map((seed) => seed.index);
  const seen = new Set<number>();
  for (const index of seeds) {
    if (index < expected.start || index >= expected.end)
      throw new ReportMergeError(`${where} holds seed #${index}, outside its block ${block}; ${again}`);
    if (seen.has(index)) throw new ReportMergeError(`${where} holds seed #${index} twice; ${again}`);
    seen.add(index);
  }
  const stopped = s.entry.stoppedBy !== null;
  const upTo = stopped || s.entry.plan.kind === "untilStable" ? expected.start + seeds.length : expected.end;
  const missing: number[] = [];
  for (let i = expected.start; i < upTo; i++) if (!seen.has(i)) missing.push(i);
  if (missing.length > 0)
    throw new ReportMergeError(
      `${where} is missing ${missing.length === 1 ? "seed" : "seeds"} ${indexList(missing)} of its plan (${block}${stopped ? `, stopped by ${s.entry.stoppedBy} after ${seeds.length}` : ""}); ${again}`,
    );
  if (s.entry.report.iterations !== seeds.length)
    throw new ReportMergeError(
      `${where} counts ${s.entry.report.iterations} seeds but holds ${seeds.length}; ${again}`,
    );
}

function mergeSimulation(name: string, shards: ShardEntry[], strictCoverage: boolean): SimulationEntry {
  const count = shards[0]!.shard.count;
  for (const s of shards) {
    if (s.shard.count !== count)
      throw new ReportMergeError(
        `simulation '${name}': ${shards[0]!.path} is a shard of ${count} but ${s.path} a shard of ${s.shard.count}; merge shards of one sharded run`,
      );
    for (const [what, a, b] of [
      ["seed plan", s.entry.plan, shards[0]!.entry.plan],
      ["--explore", s.entry.explore, shards[0]!.entry.explore],
    ] as const) {
      if (JSON.stringify(a) !== JSON.stringify(b))
        throw new ReportMergeError(
          `simulation '${name}': the ${what} of ${s.path} (${JSON.stringify(a)}) differs from ${shards[0]!.path} (${JSON.stringify(b)}); these shards are not of one campaign`,
        );
    }
  }
  shards.sort((a, b) => a.shard.index - b.shard.index);
  for (let i = 1; i < shards.length; i++) {
    if (shards[i]!.shard.index === shards[i - 1]!.shard.index)
      throw new ReportMergeError(
        `simulation '${name}': shard ${shards[i]!.shard.index}/${count} appears twice (${shards[i - 1]!.path} and ${shards[i]!.path})`,
      );
  }
  for (const s of shards) checkShardSeeds(name, s);
  const present = new Set(shards.map((s) => s.shard.index));
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !present.has(i));
  if (missing.length > 0)
    throw new ReportMergeError(
      `simulation '${name}': shard(s) ${missing.map((i) => `${i}/${count}`).join(", ")} missing; pass every shard's report`,
    );

  const reports = shards.map((s) => SimulationReport.fromJSON(s.entry.report));
  const steppingModes = new Set(reports.map((r) => r.steppingMode));
  if (steppingModes.size > 1)
    throw new ReportMergeError(
      `simulation '${name}': shards ran with different stepping modes (${[...steppingModes].join(", ")})`,
    );
  const table = new AssertionTable(reports[0]!.tableState.options);
  for (const r of reports) table.absorb(r.tableState, null);
  const seedIndexes = reports.flatMap((r) => r.seedIndexes);
  for (let i = 1; i < seedIndexes.length; i++) {
    if (seedIndexes[i]! <= seedIndexes[i - 1]!)
      throw new ReportMergeError(
        `simulation '${name}': seed #${seedIndexes[i]! + 1} is in more than one shard; the reports overlap`,
      );
  }
  const explorations = reports.map((r) => r.exploration).filter((x): x is ExplorationReport => x !== null);
  const merged = new SimulationReport({
    results: reports.flatMap((r) => r.seeds),
    seedIndexes,
    table,
    convergenceTimeout: reports.some((r) => r.convergenceTimeout),
    saturation: reports.find((r) => r.saturation !== null)?.saturation ?? null,
    wallTimeMs: reports.reduce((t, r) => t + r.totalWallTimeMs, 0),
    steppingMode: reports[0]!.steppingMode,
    exploration: explorations.length > 0 ? mergeExplorationReports(explorations) : null,
    runtime: reports[0]!.runtime,
  });
  const first = shards[0]!.entry;
  // Never evaluated in the whole campaign: never evaluated in any shard.
  const neverEvaluated = (first.neverEvaluated ?? []).filter((a) =>
    shards.every((s) => (s.entry.neverEvaluated ?? []).some((b) => b.message === a.message)),
  );
  const stoppedBy = shards.map((s) => s.entry.stoppedBy).find((r) => r !== null) ?? null;
  const coverages = shards.flatMap((s) => (s.entry.coverage === undefined ? [] : [s.entry.coverage]));
  // Every shard re-ran its own failing seeds alone: the campaign's counts are their sums.
  const checks = shards.flatMap((s) => (s.entry.replayCheck === undefined ? [] : [s.entry.replayCheck]));
  const replayCheck =
    checks.length === 0
      ? undefined
      : {
          seedsChecked: checks.reduce((n, c) => n + c.seedsChecked, 0),
          notReplaying: checks.reduce((n, c) => n + c.notReplaying, 0),
          seedsUnchecked: checks.reduce((n, c) => n + c.seedsUnchecked, 0),
        };
  return {
    name,
    description: first.description,
    file: first.file,
    plan: first.plan,
    explore: first.explore,
    exploreRoundRootSeeds: first.exploreRoundRootSeeds,
    ...(first.isolation === undefined ? {} : { isolation: first.isolation }),
    ...(replayCheck === undefined ? {} : { replayCheck }),
    shard: null,
    seedIndexRange: { start: first.seedIndexRange.start, end: shards[shards.length - 1]!.entry.seedIndexRange.end },
    status: simulationStatus(merged, strictCoverage, first.expectFailure === true, neverEvaluated.length),
    ...(neverEvaluated.length > 0 ? { neverEvaluated } : {}),
    ...(first.expectFailure === true ? { expectFailure: true } : {}),
    stoppedBy,
    failures: shards.flatMap((s) => s.entry.failures),
    sometimesFirstReached: mergeFirstReached(shards.map((s) => s.entry.sometimesFirstReached)),
    report: merged.toJSON(),
    ...(coverages.length > 0 ? { coverage: mergeCoverageEntries(coverages) } : {}),
  };
}

/** Across shards, a signal was first reached by the earliest seed (by campaign position) that reached it. */
function mergeFirstReached(lists: readonly (readonly FirstReached[])[]): FirstReached[] {
  const first = new Map<string, FirstReached>();
  for (const list of lists) {
    for (const r of list) {
      const known = first.get(r.message);
      if (known === undefined || r.seedIndex < known.seedIndex) first.set(r.message, r);
    }
  }
  return sortFirstReached([...first.values()]);
}

/** A signal that stopped a shard (the first by name when shards were stopped by different ones: any input order gives the same). */
function interruptedBy(inputs: readonly NamedReport[]): Pick<RunReportFile, "interruptedBy"> {
  const signals = inputs.flatMap((i) => (i.file.interruptedBy === undefined ? [] : [i.file.interruptedBy])).sort();
  return signals.length === 0 ? {} : { interruptedBy: signals[0]! };
}

export function mergeRunReports(inputs: readonly NamedReport[]): RunReportFile {
  if (inputs.length === 0) throw new ReportMergeError("merge needs at least one report file");
  const why = "seeds replay only on the version they ran on; merge reports of one run";
  const schemaVersion = sameEverywhere(inputs, (f) => f.schemaVersion, "schemaVersion", why);
  const packageVersion = sameEverywhere(inputs, (f) => f.packageVersion, "packageVersion", why);
  const node = sameEverywhere(inputs, (f) => f.node, "the Node version", why);
  const v8 = sameEverywhere(inputs, (f) => f.v8, "the V8 version", why);
  const strictCoverage = sameEverywhere(
    inputs,
    (f) => f.strictCoverage,
    "--strict-coverage",
    "run every shard with the same flags",
  );
  const byName = new Map<string, ShardEntry[]>();
  for (const input of inputs) {
    for (const entry of input.file.simulations) {
      const list = byName.get(entry.name) ?? [];
      list.push({ path: input.path, shard: entry.shard ?? { index: 1, count: 1 }, entry });
      byName.set(entry.name, list);
    }
  }
  const names = [...byName.keys()].sort();
  return {
    schemaVersion,
    kind: RUN_REPORT_KIND,
    packageVersion,
    node,
    v8,
    strictCoverage,
    interrupted: inputs.some((i) => i.file.interrupted),
    ...interruptedBy(inputs),
    simulations: names.map((name) => mergeSimulation(name, byName.get(name)!, strictCoverage)),
    host: null,
  };
}
