/**
 * `moonpool run [filter...]`: runs the selected simulations on the worker pool, one after the
 * other, and writes the chosen reports. Exit status: 0 all passed, 1 a seed failed / a safety
 * assertion was violated / a seed timed out (coverage too with --strict-coverage), 2 a usage or
 * loading error, 130 interrupted by SIGINT (after writing the report of what ran).
 */
import { constants } from "node:fs";
import { access, mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PACKAGE_VERSION, REPORT_SCHEMA_VERSION } from "../../runner/report.ts";
import { formatFailure } from "../../runner/seed-result.ts";
import { buildSimulationConfig, type BuildOverrides } from "../build-simulation.ts";
import { colorEnabled, colorsFor, isCI } from "../colors.ts";
import { loadConfig } from "../config-file.ts";
import { discoverSimulations, formatLoadFailure, selectSimulations, type LoadFailure } from "../discovery.ts";
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_PASSED, EXIT_USAGE, UsageError } from "../errors.ts";
import type { CliIO } from "../io.ts";
import { parseDurationMs, parsePositiveInteger, parseReporters, parseSeed, parseSeedList, parseUntilStable } from "../option-values.ts";
import { WorkerPool } from "../../runner/pool/worker-pool.ts";
import { packageModuleUrl } from "../../runner/module-url.ts";
import { DEFAULT_SEED_TIMEOUT_MS, EXPLORE_ROUND_ROOT_SEEDS, runPoolCampaign } from "../pool-campaign.ts";
import { createProgress } from "../progress.ts";
import { CampaignCoverage } from "../coverage-report.ts";
import { replayCommand, type ReplayCommandContext } from "../replay-command.ts";
import { writeHtmlReport } from "../reporters/html/index.ts";
import { renderJUnit } from "../reporters/junit.ts";
import { renderSimulationText, statusLine, summaryLine } from "../reporters/text.ts";
import { plural } from "../../runner/failure-groups.ts";
import { failureEntries, readRunReport, RUN_REPORT_KIND, simulationStatus, writeRunReport, type RunReportFile, type SimulationEntry } from "../run-report.ts";
import { declaredSafetyAssertions, neverEvaluated } from "../declared-assertions.ts";
import { describePlan, planSize, resolveSeedPlan, type SeedFlags } from "../seed-plan.ts";
import { checkShardable, parseShard, shardRange, type Shard } from "../shard.ts";

export interface RunFlags {
  readonly config?: string;
  readonly seed?: string;
  readonly seeds?: string;
  readonly iterations?: string;
  readonly untilStable?: string;
  readonly baseSeed?: string;
  readonly workers?: string;
  readonly explore?: boolean;
  readonly exploreBudget?: string;
  /** Commander's `--no-stop-on-failure`: true unless turned off. */
  readonly stopOnFailure?: boolean;
  readonly shard?: string;
  readonly reporter?: readonly string[];
  readonly out?: string;
  /** `--bail` alone: 1; `--bail n`: stop after n failing seeds; `-x`: 1. */
  readonly bail?: boolean | string;
  readonly x?: boolean;
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
}

/** Failing seeds per simulation recorded in a JSON report (what `--last-failed` reruns). */
async function failedSeedsOf(file: string): Promise<Map<string, number[]>> {
  let report: RunReportFile;
  try {
    report = await readRunReport(file);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}; --last-failed reads the report.json a run with --reporter json wrote`);
  }
  const bySimulation = new Map<string, number[]>();
  for (const entry of report.simulations) {
    const seeds = [...new Set([...(entry.report.seedsFailing as number[]), ...(entry.timedOut === null ? [] : [entry.timedOut.seed])])];
    if (seeds.length > 0) bySimulation.set(entry.name, seeds);
  }
  return bySimulation;
}

function seedFlags(flags: RunFlags): SeedFlags {
  return {
    seed: flags.seed === undefined ? undefined : parseSeed(flags.seed, "--seed"),
    seeds: flags.seeds === undefined ? undefined : parseSeedList(flags.seeds),
    iterations: flags.iterations === undefined ? undefined : parsePositiveInteger(flags.iterations, "--iterations", "500"),
    untilStable: flags.untilStable === undefined ? undefined : parseUntilStable(flags.untilStable),
    baseSeed: flags.baseSeed === undefined ? undefined : parseSeed(flags.baseSeed, "--base-seed"),
    quick: flags.quick === true,
  };
}

const EXPLORE_LAYER_URL = packageModuleUrl("../../explore/index.ts", import.meta.url);

async function checkWritableDir(dir: string, what: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
  } catch (error) {
    throw new UsageError(`${what} '${dir}': cannot write reports there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); pass a writable folder, e.g. --out moonpool-reports`);
  }
}

function reportFileName(shard: Shard | null, extension: string): string {
  return shard === null ? `report.${extension}` : `report.shard-${shard.index}-of-${shard.count}.${extension}`;
}

export async function runCommand(filters: readonly string[], flags: RunFlags, io: CliIO): Promise<number> {
  const wallStartMs = performance.now();
  const fileConfig = await loadConfig(io.cwd, flags.config);
  const seeds = seedFlags(flags);
  const shard = flags.shard === undefined ? null : parseShard(flags.shard, io.env);
  const workers = flags.workers === undefined ? fileConfig.workers : parsePositiveInteger(flags.workers, "--workers", "2");
  const seedTimeoutMs = flags.timeout === undefined ? DEFAULT_SEED_TIMEOUT_MS : parseDurationMs(flags.timeout, "--timeout");
  const reporters = flags.reporter !== undefined && flags.reporter.length > 0 ? parseReporters(flags.reporter) : fileConfig.reporters;
  const outDir = flags.out === undefined ? fileConfig.reportDir : path.resolve(io.cwd, flags.out);
  const strictCoverage = flags.strictCoverage === true;
  const bailAfter = flags.bail === undefined || flags.bail === false ? (flags.x === true ? 1 : null) : flags.bail === true ? 1 : parsePositiveInteger(flags.bail, "--bail", "3");
  // Found before any seed runs, not after the campaign: a report folder that cannot be written.
  if (reporters.includes("json") || reporters.includes("junit")) await checkWritableDir(outDir, flags.out === undefined ? "reportDir" : "--out");
  const exploreBudget = flags.exploreBudget === undefined ? undefined : parsePositiveInteger(flags.exploreBudget, "--explore-budget", "500");
  // The CLI ends a root at its first bug unless --no-stop-on-failure: a failure is what a run is for.
  const overrides: BuildOverrides = {
    explore: flags.explore === true || exploreBudget !== undefined,
    ...(exploreBudget === undefined ? {} : { exploreBudget }),
    stopOnFailure: flags.stopOnFailure !== false,
  };
  const context: ReplayCommandContext = { configArg: flags.config ?? null };

  const loadFailures: LoadFailure[] = [];
  const discovered = await discoverSimulations(fileConfig, (failure) => {
    loadFailures.push(failure);
    io.stderr.write(colorsFor(io.stderr).red(`✗ ${formatLoadFailure(failure)}`) + "\n");
  });
  let selected = selectSimulations(discovered, filters, fileConfig);
  let lastFailed: Map<string, number[]> | null = null;
  if (flags.lastFailed === true || flags.seedsFrom !== undefined) {
    if (seeds.seed !== undefined || seeds.seeds !== undefined || seeds.iterations !== undefined || seeds.untilStable !== undefined) {
      throw new UsageError("--last-failed / --seeds-from choose the seeds: do not also pass --seed, --seeds, --iterations or --until-stable");
    }
    const from = flags.seedsFrom !== undefined ? path.resolve(io.cwd, flags.seedsFrom) : path.join(outDir, "report.json");
    lastFailed = await failedSeedsOf(from);
    const failed = lastFailed;
    selected = selected.filter((sim) => failed.has(sim.name));
    const relative = path.relative(io.cwd, from);
    io.stderr.write(`rerunning the failing seeds recorded in ${relative.startsWith("..") ? from : relative}: ${selected.map((s) => `${s.name} (${plural(failed.get(s.name)!.length, "seed")})`).join(", ") || "none"}\n`);
    if (selected.length === 0) return EXIT_PASSED;
  }
  // Build and plan every simulation before starting: a bad flag or build() fails before any seed runs.
  const prepared = selected.map((sim) => {
    const config = buildSimulationConfig(sim.definition, overrides, sim.source);
    const simSeeds = lastFailed === null ? seeds : { ...seeds, seeds: lastFailed.get(sim.name)! };
    const { plan, baseSeedSource } = resolveSeedPlan(simSeeds, config, fileConfig);
    if (shard !== null) checkShardable(plan, baseSeedSource, sim.name);
    return { sim, config, plan, range: shardRange(planSize(plan), shard) };
  });

  const errColors = colorsFor(io.stderr);
  const outColors = colorsFor(io.stdout);
  const progress = createProgress(io.stderr, io.stderr.isTTY === true && !isCI(io.env), errColors);
  const interrupt = new AbortController();
  const onSigint = () => {
    // A second Ctrl-C quits at once; the first lets the run write the report of what ran.
    if (interrupt.signal.aborted) process.exit(EXIT_INTERRUPTED);
    interrupt.abort();
    progress.print(errColors.yellow("interrupted: stopping, writing the report of the seeds that ran (Ctrl-C again quits at once)"));
  };
  process.on("SIGINT", onSigint);

  const poolSize = Math.max(1, Math.min(workers, Math.max(...prepared.map((p) => p.range.end - p.range.start))));
  // Root seeds explore inside their worker, so the workers need the explore layer loaded.
  const pool = new WorkerPool(poolSize, { preloadModules: [EXPLORE_LAYER_URL] });
  const campaignCoverage = new CampaignCoverage(fileConfig.rootDir);
  const entries: SimulationEntry[] = [];
  let failingSeeds = 0;
  try {
    for (const { sim, config, plan, range } of prepared) {
      if (interrupt.signal.aborted) break;
      const explore = config.exploration !== null;
      const shardText = shard === null ? "" : `, shard ${shard.index}/${shard.count} (seeds #${range.start}..#${range.end - 1})`;
      progress.start({
        name: sim.name,
        plannedSeeds: range.end - range.start,
        upperBound: plan.kind === "untilStable",
        description: `${describePlan(plan)}${shardText}${explore ? `, exploring ${config.exploration!.maxRunsPerSeed} timelines per root seed${config.exploration!.stopOnFailure ? " (or to its first failure)" : ""} (rounds of ${EXPLORE_ROUND_ROOT_SEEDS} root seeds)` : ""} on ${poolSize} worker${poolSize === 1 ? "" : "s"}`,
        timelinesPerSeed: explore ? config.exploration!.maxRunsPerSeed : null,
      });
      const failureKeys = new Set<string>();
      const outcome = await runPoolCampaign(pool, {
        name: sim.name,
        source: sim.source,
        overrides,
        plan,
        range,
        explore,
        steppingMode: config.steppingMode,
        bail: bailAfter !== null,
        bailAfter: bailAfter === null ? undefined : Math.max(1, bailAfter - failingSeeds),
        seedTimeoutMs,
        signal: interrupt.signal,
        onProgress: (p) => progress.update(p),
        ...(flags.coverage === true ? { coverageRoot: fileConfig.rootDir } : {}),
        onFailure: (result, index) => {
          // The text report groups every failure on stdout; without it, print the first seed of
          // each new way of failing (the rest are in the report files).
          if (reporters.includes("text")) return;
          const key = result.failures.map((f) => f.property ?? `${f.kind}:${f.message.replace(/\d+(\.\d+)?/g, "#")}`)[0] ?? "";
          if (failureKeys.has(key)) return;
          failureKeys.add(key);
          const lines = [errColors.red(`✗ ${sim.name}: seed ${result.seed} (#${index}) failed`)];
          const recipes = new Set<string>();
          for (const f of result.failures) {
            lines.push(`    ${formatFailure(f)}`);
            recipes.add(f.recipe ?? "");
          }
          for (const recipe of recipes) lines.push(`  replay: ${replayCommand(context, sim.name, result.seed, recipe)}`);
          progress.print(lines.join("\n"));
        },
      });
      // A seed past --timeout is a failed seed (printed by onFailure); the campaign went on.
      const { report, stoppedBy, sometimesFirstReached } = outcome;
      failingSeeds += report.failedRuns;
      const timedOut = null;
      progress.end();
      const declared = await declaredSafetyAssertions(sim.file, fileConfig.rootDir);
      const unevaluated = neverEvaluated(declared, new Set(report.assertionDetails.map((d) => d.message)));
      const coverage = outcome.coverage === null ? null : await campaignCoverage.add(sim.source, outcome.coverage);
      const entry: SimulationEntry = {
        name: sim.name,
        description: sim.description,
        file: sim.relativeFile,
        plan,
        explore,
        exploreRoundRootSeeds: explore ? EXPLORE_ROUND_ROOT_SEEDS : null,
        shard,
        seedIndexRange: range,
        status: simulationStatus(report, strictCoverage, stoppedBy, sim.definition.expectFailure, unevaluated.length),
        ...(unevaluated.length > 0 ? { neverEvaluated: unevaluated } : {}),
        ...(sim.definition.expectFailure ? { expectFailure: true } : {}),
        stoppedBy,
        timedOut,
        failures: failureEntries(report, context, sim.name, timedOut),
        sometimesFirstReached,
        report: report.toJSON(),
        ...(coverage === null ? {} : { coverage }),
      };
      entries.push(entry);
      if (reporters.includes("text")) io.stdout.write(renderSimulationText(report, entry, context, colorEnabled(io.stdout, io.env)) + "\n");
      io.stderr.write(statusLine(entry, errColors) + "\n");
      if (stoppedBy === "bail") break;
    }
  } finally {
    progress.end();
    process.off("SIGINT", onSigint);
    await pool.close();
    await campaignCoverage.close();
  }

  const wallTimeMs = performance.now() - wallStartMs;
  const interrupted = interrupt.signal.aborted;
  const file: RunReportFile = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    kind: RUN_REPORT_KIND,
    packageVersion: PACKAGE_VERSION,
    node: process.versions.node,
    v8: process.versions.v8,
    strictCoverage,
    interrupted,
    simulations: entries,
    ...(loadFailures.length > 0 ? { loadFailures: loadFailures.map(({ relativeFile, message }) => ({ file: relativeFile, message })) } : {}),
    host: { workers: poolSize, platform: process.platform, arch: process.arch, cpus: os.availableParallelism(), wallTimeMs },
  };
  const written: string[] = [];
  if (reporters.includes("json") || reporters.includes("junit")) await mkdir(outDir, { recursive: true });
  if (flags.coverage === true) written.push(...campaignCoverage.write(path.join(outDir, shard === null ? "coverage" : `coverage.shard-${shard.index}-of-${shard.count}`)));
  if (reporters.includes("json")) {
    const target = path.join(outDir, reportFileName(shard, "json"));
    await writeRunReport(file, target);
    written.push(target);
  }
  if (reporters.includes("junit")) {
    const target = path.join(outDir, reportFileName(shard, "xml").replace(/^report/, "junit"));
    await writeFile(target, renderJUnit(file, context));
    written.push(target);
  }
  if (reporters.includes("html")) {
    // The campaign page, plus a timeline page of the first failing timeline of each property.
    const configs = new Map(prepared.map((p) => [p.sim.name, p.config]));
    written.push(...(await writeHtmlReport(file, configs, outDir, reportFileName(shard, "html"))));
  }
  for (const target of written) {
    const relative = path.relative(io.cwd, target);
    io.stderr.write(`wrote ${relative.startsWith("..") || path.isAbsolute(relative) ? target : relative}\n`);
  }
  const loadText = loadFailures.length > 0 ? `, ${loadFailures.length} file${loadFailures.length === 1 ? "" : "s"} failed to load` : "";
  const line = summaryLine(entries, wallTimeMs, interrupted) + loadText;
  io.stdout.write((entries.some((e) => e.status === "failed") || loadFailures.length > 0 ? outColors.red(line) : outColors.green(line)) + "\n");
  if (interrupted) return EXIT_INTERRUPTED;
  if (entries.some((e) => e.status === "failed")) return EXIT_FAILED;
  // The other files ran, but the command could not do all of its job.
  return loadFailures.length > 0 ? EXIT_USAGE : EXIT_PASSED;
}
