/**
 * `moonpool run [filter...]`: runs the selected simulations on the worker pool, one after the
 * other, and writes the chosen reports. Exit status: 0 all passed, 1 a seed failed / a safety
 * assertion was violated / a seed timed out (coverage too with --strict-coverage), 2 a usage or
 * loading error, 130 interrupted by SIGINT (after writing the report of what ran).
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PACKAGE_VERSION, REPORT_SCHEMA_VERSION } from "../../runner/report.ts";
import { formatFailure } from "../../runner/seed-result.ts";
import { buildSimulationConfig, type BuildOverrides } from "../build-simulation.ts";
import { colorEnabled, colorsFor, isCI } from "../colors.ts";
import { loadConfig } from "../config-file.ts";
import { discoverSimulations, selectSimulations } from "../discovery.ts";
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_PASSED } from "../errors.ts";
import type { CliIO } from "../io.ts";
import { parseDurationMs, parsePositiveInteger, parseReporters, parseSeed, parseSeedList, parseUntilStable } from "../option-values.ts";
import { WorkerPool } from "../../runner/pool/worker-pool.ts";
import { DEFAULT_SEED_TIMEOUT_MS, EXPLORE_ROUND_ROOT_SEEDS, runPoolCampaign } from "../pool-campaign.ts";
import { createProgress } from "../progress.ts";
import { replayCommand, type ReplayCommandContext } from "../replay-command.ts";
import { renderJUnit } from "../reporters/junit.ts";
import { renderSimulationText, statusLine, summaryLine } from "../reporters/text.ts";
import { failureEntries, RUN_REPORT_KIND, simulationFailed, writeRunReport, type RunReportFile, type SimulationEntry } from "../run-report.ts";
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
  readonly shard?: string;
  readonly reporter?: readonly string[];
  readonly out?: string;
  readonly bail?: boolean;
  readonly timeout?: string;
  readonly strictCoverage?: boolean;
}

function seedFlags(flags: RunFlags): SeedFlags {
  return {
    seed: flags.seed === undefined ? undefined : parseSeed(flags.seed, "--seed"),
    seeds: flags.seeds === undefined ? undefined : parseSeedList(flags.seeds),
    iterations: flags.iterations === undefined ? undefined : parsePositiveInteger(flags.iterations, "--iterations", "500"),
    untilStable: flags.untilStable === undefined ? undefined : parseUntilStable(flags.untilStable),
    baseSeed: flags.baseSeed === undefined ? undefined : parseSeed(flags.baseSeed, "--base-seed"),
  };
}

const EXPLORE_LAYER_URL = new URL("../../explore/index.ts", import.meta.url).href;

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
  const overrides: BuildOverrides = { explore: flags.explore === true };
  const context: ReplayCommandContext = { configArg: flags.config ?? null };

  const selected = selectSimulations(await discoverSimulations(fileConfig), filters, fileConfig);
  // Build and plan every simulation before starting: a bad flag or build() fails before any seed runs.
  const prepared = selected.map((sim) => {
    const config = buildSimulationConfig(sim.definition, overrides, sim.source);
    const { plan, baseSeedSource } = resolveSeedPlan(seeds, config, fileConfig);
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
  const entries: SimulationEntry[] = [];
  try {
    for (const { sim, config, plan, range } of prepared) {
      if (interrupt.signal.aborted) break;
      const explore = config.exploration !== null;
      const shardText = shard === null ? "" : `, shard ${shard.index}/${shard.count} (seeds #${range.start + 1}..#${range.end})`;
      progress.start({
        name: sim.name,
        plannedSeeds: range.end - range.start,
        upperBound: plan.kind === "untilStable",
        description: `${describePlan(plan)}${shardText}${explore ? `, exploring (rounds of ${EXPLORE_ROUND_ROOT_SEEDS} root seeds)` : ""} on ${poolSize} worker${poolSize === 1 ? "" : "s"}`,
      });
      const outcome = await runPoolCampaign(pool, {
        name: sim.name,
        source: sim.source,
        overrides,
        plan,
        range,
        explore,
        steppingMode: config.steppingMode,
        bail: flags.bail === true,
        seedTimeoutMs,
        signal: interrupt.signal,
        onProgress: (p) => progress.update(p),
        onFailure: (result, index) => {
          const lines = [errColors.red(`✗ ${sim.name}: seed ${result.seed} (seed #${index + 1}) failed`)];
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
      const { report, stoppedBy } = outcome;
      const timedOut = null;
      progress.end();
      const entry: SimulationEntry = {
        name: sim.name,
        description: sim.description,
        file: sim.relativeFile,
        plan,
        explore,
        exploreRoundRootSeeds: explore ? EXPLORE_ROUND_ROOT_SEEDS : null,
        shard,
        seedIndexRange: range,
        status: simulationFailed(report, strictCoverage, stoppedBy) ? "failed" : "passed",
        stoppedBy,
        timedOut,
        failures: failureEntries(report, context, sim.name, timedOut),
        report: report.toJSON(),
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
    host: { workers: poolSize, platform: process.platform, arch: process.arch, cpus: os.availableParallelism(), wallTimeMs },
  };
  const written: string[] = [];
  if (reporters.includes("json") || reporters.includes("junit")) await mkdir(outDir, { recursive: true });
  if (reporters.includes("json")) {
    const target = path.join(outDir, reportFileName(shard, "json"));
    await writeRunReport(file, target);
    written.push(target);
  }
  if (reporters.includes("junit")) {
    const target = path.join(outDir, reportFileName(shard, "xml").replace(/^report/, "junit"));
    await writeFile(target, renderJUnit(file));
    written.push(target);
  }
  for (const target of written) {
    const relative = path.relative(io.cwd, target);
    io.stderr.write(`wrote ${relative.startsWith("..") || path.isAbsolute(relative) ? target : relative}\n`);
  }
  const line = summaryLine(entries, wallTimeMs, interrupted);
  io.stdout.write((entries.some((e) => e.status === "failed") ? outColors.red(line) : outColors.green(line)) + "\n");
  if (interrupted) return EXIT_INTERRUPTED;
  return entries.some((e) => e.status === "failed") ? EXIT_FAILED : EXIT_PASSED;
}
