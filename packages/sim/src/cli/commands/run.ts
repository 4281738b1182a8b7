/**
 * `moonpool run [filter...]`: runs the selected simulations on the worker pool, one after the
 * other, and writes the chosen reports. Exit status: 0 all passed, 1 a seed failed / a safety
 * assertion was violated / a seed timed out (coverage too with --strict-coverage), 2 a usage or
 * loading error, 74 a report file could not be written, 130 / 143 / 129 stopped by SIGINT /
 * SIGTERM / SIGHUP (after writing the report of what ran). A shard (`--shard`) of an
 * `expectFailure` simulation that found no failure passes: only `merge` judges the campaign.
 */
import { constants } from "node:fs";
import { access, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { SimulationConfig } from "../../runner/config.ts";
import { PACKAGE_VERSION, REPORT_SCHEMA_VERSION } from "../../runner/report.ts";
import { formatFailure, type SeedResult } from "../../runner/seed-result.ts";
import type { IndexRange, SeedPlan } from "../../runner/seed-plan.ts";
import { buildSimulationConfig, type BuildOverrides } from "../build-simulation.ts";
import { colorsFor, isCI, type Colors } from "../colors.ts";
import { loadConfig, type ResolvedConfig } from "../config-file.ts";
import type { ReporterName } from "../define.ts";
import {
  discoverSimulations,
  formatLoadFailure,
  selectSimulations,
  type DiscoveredSimulation,
  type LoadFailure,
} from "../discovery.ts";
import {
  EXIT_FAILED,
  EXIT_IO,
  EXIT_PASSED,
  EXIT_USAGE,
  ReportWriteError,
  SimulationLoadError,
  UsageError,
} from "../errors.ts";
import type { CliIO } from "../io.ts";
import { parsePositiveInteger, parseReporters, parseSeed, parseSeedList, parseUntilStable } from "../option-values.ts";
import { DEFAULT_POOL_GROWTH, WorkerPool } from "../../runner/pool/worker-pool.ts";
import { isolationFlag } from "../isolation-flag.ts";
import { resolveIsolation, sharedIsolationNote } from "../../runner/isolation.ts";
import {
  EXPLORE_ROUND_ROOT_SEEDS,
  runPoolCampaign,
  type PoolCampaignOptions,
} from "../../runner/pool/pool-campaign.ts";
import { runAdaptivePoolCampaign } from "../../runner/pool/adaptive-pool.ts";
import { hangLimitMs, hangTimeoutFlag } from "../hang-timeout.ts";
import { createProgress, type ProgressDisplay as Progress } from "../progress.ts";
import { CampaignCoverage } from "../coverage-report.ts";
import { replayCommand, type ReplayCommandContext } from "../replay-command.ts";
import { REPORTERS } from "../reporters/registry.ts";
import { statusLine, summaryLine } from "../reporters/text.ts";
import { plural } from "../../runner/failure-groups.ts";
import {
  failureEntries,
  readRunReport,
  RUN_REPORT_KIND,
  simulationStatus,
  type RunReportFile,
  type SimulationEntry,
} from "../run-report.ts";
import { declaredAssertions, neverEvaluated } from "../declared-assertions.ts";
import { describePlan, planSize, resolveSeedPlan, type SeedFlags } from "../seed-plan.ts";
import { checkShardable, parseShard, shardRange, type Shard } from "../shard.ts";
import { ensureDir, reportWriteError } from "../report-files.ts";
import { onTermination, signalExitCode } from "../termination.ts";
import { escapeTerminal } from "../terminal-text.ts";

export interface RunFlags {
  readonly config?: string;
  readonly seed?: string;
  readonly seeds?: string;
  readonly iterations?: string;
  readonly untilStable?: string;
  /** `--budget N`: the adaptive campaign's budget in timelines. */
  readonly budget?: string;
  readonly baseSeed?: string;
  readonly workers?: string;
  readonly explore?: boolean;
  readonly exploreBudget?: string;
  readonly exploreTotalBudget?: string;
  /** Commander's `--no-stop-on-failure`: true unless turned off. */
  readonly stopOnFailure?: boolean;
  readonly shard?: string;
  readonly reporter?: readonly string[];
  readonly out?: string;
  /** `--bail` alone: 1; `--bail n`: stop after n failing seeds; `-x`: 1. */
  readonly bail?: boolean | string;
  readonly x?: boolean;
  readonly hangTimeout?: string;
  /** The older name of `hangTimeout`. */
  readonly timeout?: string;
  readonly strictCoverage?: boolean;
  /** Rerun the failing seeds recorded in the last JSON report (`<out>/report.json`). */
  readonly lastFailed?: boolean;
  /** Rerun the failing seeds recorded in this JSON report. */
  readonly seedsFrom?: string;
  /** The default stop rule without its minimum budget. */
  readonly quick?: boolean;
  /** Code coverage of the system under test: a plateau signal and lcov/HTML reports. */
  readonly coverage?: boolean;
  /** `--isolation seed|shared`: overrides every simulation's own setting. */
  readonly isolation?: string;
  /** `--watch`: run again when the files change (commands/run-watch.ts). */
  readonly watch?: boolean;
  /** Internal, for `--watch`: also write the run report (JSON) here. */
  readonly watchReport?: string;
}

/** Failing seeds per simulation recorded in a JSON report (what `--last-failed` reruns). */
async function failedSeedsOf(file: string): Promise<Map<string, number[]>> {
  let report: RunReportFile;
  try {
    report = await readRunReport(file);
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message}; --last-failed reads the report.json a run with --reporter json wrote`,
    );
  }
  const bySimulation = new Map<string, number[]>();
  for (const entry of report.simulations) {
    const seeds = [...new Set(entry.report.seedsFailing as number[])];
    if (seeds.length > 0) bySimulation.set(entry.name, seeds);
  }
  return bySimulation;
}

function seedFlags(flags: RunFlags): SeedFlags {
  return {
    seed: flags.seed === undefined ? undefined : parseSeed(flags.seed, "--seed"),
    seeds: flags.seeds === undefined ? undefined : parseSeedList(flags.seeds),
    iterations:
      flags.iterations === undefined ? undefined : parsePositiveInteger(flags.iterations, "--iterations", "500"),
    untilStable: flags.untilStable === undefined ? undefined : parseUntilStable(flags.untilStable),
    budget: flags.budget === undefined ? undefined : parsePositiveInteger(flags.budget, "--budget", "1000"),
    baseSeed: flags.baseSeed === undefined ? undefined : parseSeed(flags.baseSeed, "--base-seed"),
    quick: flags.quick === true,
  };
}

async function checkWritableDir(dir: string, what: string): Promise<void> {
  try {
    await ensureDir(dir);
    await access(dir, constants.W_OK);
  } catch (error) {
    const cause = ((error as Error).cause ?? error) as NodeJS.ErrnoException;
    throw new UsageError(
      `${what} '${dir}': cannot write reports there (${cause.code ?? cause.message}); pass a writable folder, e.g. --out moonpool-reports`,
    );
  }
}

/** Everything the flags and the config file decide, parsed and checked before any seed runs. */
interface RunSettings {
  readonly fileConfig: ResolvedConfig;
  readonly seeds: SeedFlags;
  readonly shard: Shard | null;
  readonly workers: number;
  /** `--hang-timeout` (or `--timeout`), or null: the config file's, else the default (cli/hang-timeout.ts). */
  readonly hangTimeoutMs: number | null;
  readonly reporters: readonly ReporterName[];
  readonly outDir: string;
  readonly strictCoverage: boolean;
  /** Stop after this many failing seeds (`--bail`, `-x`), or null. */
  readonly bailAfter: number | null;
  readonly overrides: BuildOverrides;
  /** `--explore-total-budget`: timelines for all root seeds together, or null. */
  readonly exploreTotal: number | null;
  readonly context: ReplayCommandContext;
  /** `--isolation`, or null: each simulation's own (runner/isolation.ts). */
  readonly isolation: ReturnType<typeof isolationFlag>;
}

/**
 * `--explore-total-budget N`: every root seed of the plan gets an equal share, `floor(N / seeds)`
 * (at least 1). The share depends on the whole plan, not on a shard, so shards explore exactly
 * as one unsharded run would; a plan without a fixed number of seeds has no share to give.
 */
function totalBudgetPerRoot(total: number, plan: SeedPlan, name: string): number {
  if (plan.kind === "untilStable" || plan.kind === "adaptive") {
    throw new UsageError(
      `--explore-total-budget needs a fixed number of root seeds, but '${name}' ${plan.kind === "adaptive" ? "spends one adaptive budget (--budget N sets it)" : "runs until coverage is stable"}: add --iterations N, --seeds or --seed`,
    );
  }
  return Math.max(1, Math.floor(total / planSize(plan)));
}

async function runSettings(flags: RunFlags, io: CliIO): Promise<RunSettings> {
  const fileConfig = await loadConfig(io.cwd, flags.config);
  const reporters =
    flags.reporter !== undefined && flags.reporter.length > 0 ? parseReporters(flags.reporter) : fileConfig.reporters;
  const outDir = flags.out === undefined ? fileConfig.reportDir : path.resolve(io.cwd, flags.out);
  // Found before any seed runs, not after the campaign: a report folder that cannot be written.
  if (reporters.some((name) => REPORTERS[name].writesFiles))
    await checkWritableDir(outDir, flags.out === undefined ? "reportDir" : "--out");
  const exploreBudget =
    flags.exploreBudget === undefined
      ? undefined
      : parsePositiveInteger(flags.exploreBudget, "--explore-budget", "500");
  const exploreTotal =
    flags.exploreTotalBudget === undefined
      ? undefined
      : parsePositiveInteger(flags.exploreTotalBudget, "--explore-total-budget", "5000");
  if (exploreBudget !== undefined && exploreTotal !== undefined) {
    throw new UsageError(
      "--explore-budget (per root seed) and --explore-total-budget (all root seeds together) both set the budget: use one",
    );
  }
  const bail = flags.bail;
  return {
    fileConfig,
    seeds: seedFlags(flags),
    shard: flags.shard === undefined ? null : parseShard(flags.shard, io.env),
    workers: flags.workers === undefined ? fileConfig.workers : parsePositiveInteger(flags.workers, "--workers", "2"),
    hangTimeoutMs: hangTimeoutFlag(flags),
    reporters,
    outDir,
    strictCoverage: flags.strictCoverage === true,
    bailAfter:
      bail === undefined || bail === false
        ? flags.x === true
          ? 1
          : null
        : bail === true
          ? 1
          : parsePositiveInteger(bail, "--bail", "3"),
    // The CLI ends a root at its first bug unless --no-stop-on-failure: a failure is what a run is for.
    overrides: {
      explore: flags.explore === true || exploreBudget !== undefined || exploreTotal !== undefined,
      ...(exploreBudget === undefined ? {} : { exploreBudget }),
      stopOnFailure: flags.stopOnFailure !== false,
    },
    exploreTotal: exploreTotal ?? null,
    context: { configArg: flags.config ?? null },
    isolation: isolationFlag(flags.isolation),
  };
}

/** A simulation built and planned, ready to run. */
interface Prepared {
  readonly sim: DiscoveredSimulation;
  readonly config: SimulationConfig;
  readonly plan: SeedPlan;
  readonly range: IndexRange;
  /** The settings' overrides, with this simulation's share of `--explore-total-budget`. */
  readonly overrides: BuildOverrides;
}

/**
 * Discovers and selects the simulations (only those with failing seeds for `--last-failed`), then
 * builds and plans each: a bad flag or build() fails before any seed runs. Null: nothing to rerun.
 */
async function prepareSimulations(
  filters: readonly string[],
  flags: RunFlags,
  settings: RunSettings,
  io: CliIO,
  loadFailures: LoadFailure[],
): Promise<Prepared[] | null> {
  const { fileConfig, seeds, shard } = settings;
  const discovered = await discoverSimulations(fileConfig, (failure) => {
    loadFailures.push(failure);
    io.stderr.write(colorsFor(io.stderr).red(`✗ ${escapeTerminal(formatLoadFailure(failure))}`) + "\n");
  });
  let selected = selectSimulations(discovered, filters, fileConfig);
  let lastFailed: Map<string, number[]> | null = null;
  if (flags.lastFailed === true || flags.seedsFrom !== undefined) {
    if (
      seeds.seed !== undefined ||
      seeds.seeds !== undefined ||
      seeds.iterations !== undefined ||
      seeds.untilStable !== undefined ||
      seeds.budget !== undefined
    ) {
      throw new UsageError(
        "--last-failed / --seeds-from choose the seeds: do not also pass --seed, --seeds, --iterations, --until-stable or --budget",
      );
    }
    const from =
      flags.seedsFrom !== undefined ? path.resolve(io.cwd, flags.seedsFrom) : path.join(settings.outDir, "report.json");
    const failed = await failedSeedsOf(from);
    lastFailed = failed;
    selected = selected.filter((sim) => failed.has(sim.name));
    const relative = path.relative(io.cwd, from);
    const list =
      selected.map((s) => `${s.name} (${plural(failed.get(s.name)?.length ?? 0, "seed")})`).join(", ") || "none";
    io.stderr.write(
      `rerunning the failing seeds recorded in ${relative.startsWith("..") ? from : relative}: ${list}\n`,
    );
    if (selected.length === 0) return null;
  }
  return selected.map((sim) => {
    let config = buildSimulationConfig(sim.definition, settings.overrides, sim.source);
    const rerun = lastFailed?.get(sim.name);
    const { plan, baseSeedSource } = resolveSeedPlan(
      rerun === undefined ? seeds : { ...seeds, seeds: rerun },
      config,
      fileConfig,
    );
    if (shard !== null) checkShardable(plan, baseSeedSource, sim.name);
    if (plan.kind === "adaptive" && settings.overrides.exploreBudget !== undefined)
      throw new UsageError(
        `--explore-budget sets the timelines of each root seed, but '${sim.name}' spends one adaptive budget: use --budget N, or --iterations N with --explore-budget`,
      );
    let overrides = settings.overrides;
    if (settings.exploreTotal !== null) {
      overrides = { ...overrides, exploreBudget: totalBudgetPerRoot(settings.exploreTotal, plan, sim.name) };
      config = buildSimulationConfig(sim.definition, overrides, sim.source);
    }
    return { sim, config, plan, overrides, range: shardRange(planSize(plan), shard) };
  });
}

/** Without the text reporter, prints the first seed of each new way of failing as it is absorbed (the rest are in the report files). */
function firstFailurePrinter(
  name: string,
  context: ReplayCommandContext,
  progress: Progress,
  colors: Colors,
): (result: SeedResult, index: number) => void {
  const failureKeys = new Set<string>();
  return (result, index) => {
    const key =
      result.failures.map((f) => f.property ?? `${f.kind}:${f.message.replace(/\d+(\.\d+)?/g, "#")}`)[0] ?? "";
    if (failureKeys.has(key)) return;
    failureKeys.add(key);
    const lines = [colors.red(`✗ ${name}: seed ${result.seed} (#${index}) failed`)];
    const recipes = new Set<string>();
    for (const f of result.failures) {
      lines.push(`    ${formatFailure(f)}`);
      if (f.notReplaying !== undefined) lines.push(...f.notReplaying.split("\n").map((l) => `  ${l}`));
      else recipes.add(f.recipe ?? "");
    }
    for (const recipe of recipes) lines.push(`  replay: ${replayCommand(context, name, result.seed, recipe)}`);
    progress.print(escapeTerminal(lines.join("\n"), colors.isColorSupported));
  };
}

/** Runs one simulation's campaign on the pool and returns its report entry (printed by the reporters that print). */
async function runSimulation(
  pool: WorkerPool,
  prepared: Prepared,
  settings: RunSettings,
  io: CliIO,
  progress: Progress,
  signal: AbortSignal,
  failingSoFar: number,
  coverage: CampaignCoverage | null,
): Promise<SimulationEntry> {
  const { sim, config, plan, range } = prepared;
  const { shard, bailAfter, context } = settings;
  const adaptive = plan.kind === "adaptive";
  const explore = config.exploration !== null && !adaptive;
  const shardText =
    shard === null ? "" : `, shard ${shard.index}/${shard.count} (seeds #${range.start}..#${range.end - 1})`;
  const exploreText = explore
    ? `, exploring ${config.exploration!.maxRunsPerSeed} timelines per root seed${config.exploration!.stopOnFailure ? " (or to its first failure)" : ""} (rounds of ${EXPLORE_ROUND_ROOT_SEEDS} root seeds)`
    : "";
  progress.start({
    name: sim.name,
    // An adaptive campaign counts timelines: its budget is the bound.
    plannedSeeds: range.end - range.start,
    upperBound: plan.kind === "untilStable",
    description: `${describePlan(plan)}${shardText}${exploreText} on ${pool.size} worker${pool.size === 1 ? "" : "s"}`,
    timelinesPerSeed: explore ? config.exploration!.maxRunsPerSeed : null,
    ...(adaptive ? { unit: "timelines" as const } : {}),
    stopRule:
      plan.kind === "untilStable"
        ? { requiredQuietSeeds: plan.quietSeeds, minSeeds: plan.minSeeds ?? 0, maxSeeds: plan.maxSeeds }
        : null,
  });
  const errColors = colorsFor(io.stderr);
  const isolation = resolveIsolation(config, settings.isolation);
  const sharedNote = sharedIsolationNote(isolation);
  if (sharedNote !== null) progress.print(errColors.yellow(`${sim.name}: ${sharedNote}`));
  // A hung seed (no step for the hang limit) is a failed seed (printed by onFailure); the campaign goes on.
  const options: PoolCampaignOptions = {
    name: sim.name,
    source: sim.source,
    overrides: prepared.overrides,
    plan,
    range,
    explore,
    steppingMode: config.steppingMode,
    bail: bailAfter !== null,
    bailAfter: bailAfter === null ? undefined : Math.max(1, bailAfter - failingSoFar),
    hangTimeoutMs: hangLimitMs(settings.hangTimeoutMs, settings.fileConfig.hangTimeoutMs),
    isolation: isolation.mode,
    signal,
    loadError: (message) => new SimulationLoadError(message),
    onProgress: (p) => progress.update(p),
    // The text report groups every failure on stdout.
    onFailure: settings.reporters.includes("text")
      ? undefined
      : firstFailurePrinter(sim.name, context, progress, errColors),
    ...(coverage === null ? {} : { coverageRoot: settings.fileConfig.rootDir }),
  };
  const outcome = adaptive
    ? await runAdaptivePoolCampaign(pool, options, plan, config.exploration)
    : await runPoolCampaign(pool, options);
  const { report, stoppedBy, sometimesFirstReached, replayCheck } = outcome;
  progress.end();
  if (replayCheck !== null && replayCheck.seedsUnchecked > 0)
    io.stderr.write(
      errColors.yellow(
        `${sim.name}: the first ${replayCheck.seedsChecked} failing seeds were re-run alone; ${plural(replayCheck.seedsUnchecked, "more failing seed")} were not (their replay commands are unchecked)`,
      ) + "\n",
    );
  const blocks = outcome.coverage;
  const codeCoverage = coverage === null || blocks === null ? null : await coverage.add(sim.source, blocks);
  const declared = await declaredAssertions(sim.file, settings.fileConfig.rootDir);
  const reached = [...report.assertionDetails, ...report.bucketSummaries].map((d) => d.message);
  const unevaluated = neverEvaluated(declared, new Set(reached));
  const entry: SimulationEntry = {
    name: sim.name,
    description: sim.description,
    file: sim.relativeFile,
    plan,
    explore,
    exploreRoundRootSeeds: explore ? EXPLORE_ROUND_ROOT_SEEDS : null,
    shard,
    seedIndexRange: range,
    status: simulationStatus(
      report,
      settings.strictCoverage,
      sim.definition.expectFailure,
      unevaluated.length,
      shard !== null && shard.count > 1,
    ),
    ...(unevaluated.length > 0 ? { neverEvaluated: unevaluated } : {}),
    ...(sim.definition.expectFailure ? { expectFailure: true } : {}),
    stoppedBy,
    isolation: { mode: isolation.mode, chosen: isolation.chosen },
    ...(replayCheck === null ? {} : { replayCheck }),
    failures: failureEntries(report, context, sim.name),
    sometimesFirstReached,
    report: report.toJSON(),
    ...(codeCoverage === null ? {} : { coverage: codeCoverage }),
  };
  for (const name of settings.reporters) REPORTERS[name].simulationDone?.(report, entry, context, io);
  io.stderr.write(statusLine(entry, errColors) + "\n");
  return entry;
}

export async function runCommand(filters: readonly string[], flags: RunFlags, io: CliIO): Promise<number> {
  const wallStartMs = performance.now();
  const settings = await runSettings(flags, io);
  const loadFailures: LoadFailure[] = [];
  const prepared = await prepareSimulations(filters, flags, settings, io, loadFailures);
  if (prepared === null) return EXIT_PASSED;

  const errColors = colorsFor(io.stderr);
  const progress = createProgress(io.stderr, io.stderr.isTTY === true && !isCI(io.env), errColors);
  // A second signal quits at once; the first lets the run write the report of what ran.
  const interrupt = onTermination((signal) =>
    progress.print(
      errColors.yellow(
        `interrupted by ${signal}: stopping, writing the report of the seeds that ran (${signal === "SIGINT" ? "Ctrl-C" : "a second signal"} again quits at once)`,
      ),
    ),
  );
  // One pool for the whole command: its workers serve every simulation's seeds.
  const poolSize = Math.max(
    1,
    Math.min(settings.workers, Math.max(...prepared.map((p) => p.range.end - p.range.start))),
  );
  // Workers beyond the first start only while the machine has CPU to spare for them (D44).
  const pool = new WorkerPool(poolSize, { grow: DEFAULT_POOL_GROWTH });
  const coverageDir =
    settings.shard === null ? "coverage" : `coverage.shard-${settings.shard.index}-of-${settings.shard.count}`;
  const coverage = flags.coverage === true ? new CampaignCoverage(settings.fileConfig.rootDir, coverageDir) : null;
  const entries: SimulationEntry[] = [];
  let failingSeeds = 0;
  try {
    for (const simulation of prepared) {
      if (interrupt.signal.aborted) break;
      const entry = await runSimulation(
        pool,
        simulation,
        settings,
        io,
        progress,
        interrupt.signal,
        failingSeeds,
        coverage,
      );
      entries.push(entry);
      failingSeeds += Number(entry.report.failedRuns);
      if (entry.stoppedBy === "bail") break;
    }
  } finally {
    progress.end();
    await pool.close();
    await coverage?.close();
  }

  const wallTimeMs = performance.now() - wallStartMs;
  const interruptedBy = interrupt.received();
  const interrupted = interruptedBy !== null;
  const file: RunReportFile = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    kind: RUN_REPORT_KIND,
    packageVersion: PACKAGE_VERSION,
    node: process.versions.node,
    v8: process.versions.v8,
    strictCoverage: settings.strictCoverage,
    interrupted,
    ...(interruptedBy === null ? {} : { interruptedBy }),
    simulations: entries,
    ...(loadFailures.length > 0
      ? { loadFailures: loadFailures.map(({ relativeFile, message }) => ({ file: relativeFile, message })) }
      : {}),
    host: {
      workers: poolSize,
      platform: process.platform,
      arch: process.arch,
      cpus: os.availableParallelism(),
      wallTimeMs,
    },
  };
  // What a watching moonpool reads back: the files to watch and the failing seeds.
  if (flags.watchReport !== undefined) await writeFile(flags.watchReport, JSON.stringify(file));
  const target = {
    file,
    outDir: settings.outDir,
    shard: settings.shard,
    context: settings.context,
    replays: {
      // A signal asks for a quick end: the campaign page lists the failures, no timeline is replayed.
      sources:
        interruptedBy !== null
          ? new Map()
          : new Map(prepared.map((p) => [p.sim.name, { source: p.sim.source, overrides: p.overrides }])),
      hangTimeoutMs: hangLimitMs(settings.hangTimeoutMs, settings.fileConfig.hangTimeoutMs),
      warn: (line: string) => progress.print(errColors.yellow(line)),
    },
  };
  // Every reporter writes what it can: one that cannot write its file does not cost the others theirs.
  const written: string[] = [];
  const writeErrors: ReportWriteError[] = [];
  const attempt = async (files: () => Promise<string[]>, what: string) => {
    try {
      written.push(...(await files()));
    } catch (error) {
      const translated = reportWriteError(what, error);
      if (!(translated instanceof ReportWriteError)) throw error;
      writeErrors.push(translated);
    }
  };
  if (coverage !== null)
    await attempt(async () => coverage.write(settings.outDir), path.join(settings.outDir, coverage.dirName));
  if (interruptedBy !== null && settings.reporters.includes("html") && entries.some((e) => e.failures.length > 0))
    progress.print(
      errColors.yellow(
        `html: stopped by ${interruptedBy}, so no timeline pages were drawn (moonpool replay --html draws one)`,
      ),
    );
  // The HTML report replays timelines: it goes last, after the reports that only write what ran.
  const order = [...settings.reporters].sort((a, b) => Number(a === "html") - Number(b === "html"));
  for (const name of order) {
    const reporter = REPORTERS[name];
    if (reporter.finish !== undefined) await attempt(() => reporter.finish!(target), settings.outDir);
  }
  for (const file of written) {
    const relative = path.relative(io.cwd, file);
    io.stderr.write(`wrote ${relative.startsWith("..") || path.isAbsolute(relative) ? file : relative}\n`);
  }
  const loadText =
    loadFailures.length > 0
      ? `, ${loadFailures.length} file${loadFailures.length === 1 ? "" : "s"} failed to load`
      : "";
  const line = summaryLine(entries, wallTimeMs, interrupted, interruptedBy ?? undefined) + loadText;
  const outColors = colorsFor(io.stdout);
  io.stdout.write(
    (entries.some((e) => e.status === "failed") || loadFailures.length > 0
      ? outColors.red(line)
      : outColors.green(line)) + "\n",
  );
  for (const error of writeErrors) io.stderr.write(`moonpool: ${error.message}\n`);
  // A missing report is the first thing to say, even of a run a signal stopped.
  if (writeErrors.length > 0) return EXIT_IO;
  if (interruptedBy !== null) return signalExitCode(interruptedBy);
  if (entries.some((e) => e.status === "failed")) return EXIT_FAILED;
  // The other files ran, but the command could not do all of its job.
  return loadFailures.length > 0 ? EXIT_USAGE : EXIT_PASSED;
}
