/**
 * `moonpool shrink <simulation> --seed S [--recipe R]`: searches for a smaller run of a failing
 * timeline that violates the same property (`runner/shrink/`), prints progress on stderr, then a
 * before/after table and the replay command of the shrunk run. Exit 0 when it printed a result
 * (even one that could not be shrunk), 2 for usage errors (a seed that passes among them), 130 /
 * 143 / 129 when SIGINT / SIGTERM / SIGHUP stopped the search (the best run found so far is still
 * printed), 74 when the `--html` page could not be written.
 */
import path from "node:path";
import { formatDuration } from "../../runner/report-format.ts";
import type { RunSize } from "../../runner/shrink/measure.ts";
import { hangLimitMs, hangTimeoutFlag } from "../hang-timeout.ts";
import { IsolatedRuns } from "../../runner/shrink/isolated-runs.ts";
import { resolveIsolation } from "../../runner/isolation.ts";
import { isolationFlag } from "../isolation-flag.ts";
import { NothingToShrink, shrinkTimeline, type ShrinkResult } from "../../runner/shrink/shrinker.ts";
import { buildSimulationConfig } from "../build-simulation.ts";
import { colorsFor, isCI } from "../colors.ts";
import { createShrinkDisplay } from "../shrink-progress.ts";
import { loadConfig } from "../config-file.ts";
import { discoverSimulations, findSimulation, formatLoadFailure } from "../discovery.ts";
import { EXIT_PASSED, UsageError } from "../errors.ts";
import type { CliIO } from "../io.ts";
import { parseDurationMs, parsePositiveInteger, failingTimelineFlags } from "../option-values.ts";
import { replayCommand } from "../replay-command.ts";
import { writeReportFile } from "../report-files.ts";
import { escapeTerminal } from "../terminal-text.ts";
import { renderTimelineHtml, replayTimelineInWorker } from "../reporters/html/index.ts";
import { WorkerPool } from "../../runner/pool/worker-pool.ts";
import { onTermination, signalExitCode } from "../termination.ts";

export interface ShrinkFlags {
  readonly config?: string;
  readonly seed?: string;
  readonly recipe?: string;
  readonly maxRuns?: string;
  readonly timeBudget?: string;
  /** Commander's `--no-stop-on-stall`: true unless turned off. */
  readonly stopOnStall?: boolean;
  readonly hangTimeout?: string;
  /** The older name of `hangTimeout`. */
  readonly timeout?: string;
  readonly html?: boolean;
  readonly out?: string;
  /** `--isolation seed|shared`: overrides the simulation's own setting (runner/isolation.ts). */
  readonly isolation?: string;
}

/** The before/after table: one row per figure, sizes by name. */
export function formatShrinkSummary(result: ShrinkResult): string[] {
  const rows: [string, string, string][] = [
    ["events", String(result.before.events), String(result.after.events)],
    ["simulated time", formatDuration(result.before.simulatedTimeMs), formatDuration(result.after.simulatedTimeMs)],
    ["faults injected", String(result.before.faults), String(result.after.faults)],
    ["processes", String(result.before.processes), String(result.after.processes)],
  ];
  const sizeOf = (size: RunSize, name: string) => (size.sizes[name] === undefined ? "-" : String(size.sizes[name]));
  for (const name of Object.keys(result.before.sizes))
    rows.push([`workload ${name}`, sizeOf(result.before, name), sizeOf(result.after, name)]);
  rows.push(["recipe segments", String(result.before.recipeSegments), String(result.after.recipeSegments)]);
  rows.push(["trace hash", result.before.traceHash, result.after.traceHash]);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max("before".length, ...rows.map((r) => r[1].length));
  const line = (r: readonly string[]) => `  ${r[0]!.padEnd(w0)}  ${r[1]!.padStart(w1)}  ${r[2]}`;
  return [line(["", "before", "after"]), ...rows.map(line)];
}

export async function shrinkCommand(simulationArg: string | undefined, flags: ShrinkFlags, io: CliIO): Promise<number> {
  const { simulation, seed, recipe } = failingTimelineFlags("shrink", simulationArg, flags);
  const maxRuns = flags.maxRuns === undefined ? undefined : parsePositiveInteger(flags.maxRuns, "--max-runs", "1000");
  const timeBudgetMs = flags.timeBudget === undefined ? undefined : parseDurationMs(flags.timeBudget, "--time-budget");
  const hangFlagMs = hangTimeoutFlag(flags);
  const fileConfig = await loadConfig(io.cwd, flags.config);
  const discovered = await discoverSimulations(fileConfig, (failure) =>
    io.stderr.write(`${escapeTerminal(formatLoadFailure(failure))}\n`),
  );
  const sim = findSimulation(discovered, simulation);
  const config = buildSimulationConfig(sim.definition, { explore: false }, sim.source);
  const runHangMs = hangLimitMs(hangFlagMs, fileConfig.hangTimeoutMs);
  const c = colorsFor(io.stderr);
  const out = colorsFor(io.stdout);

  const interrupt = onTermination((signal) =>
    io.stderr.write(
      c.yellow(
        `interrupted by ${signal}: stopping after this run, printing the best run so far (${signal === "SIGINT" ? "Ctrl-C" : "a second signal"} again quits at once)\n`,
      ),
    ),
  );
  // Each candidate runs in a worker under the hang limit, as seeds of moonpool run do.
  // With isolation "seed", a fresh realm per candidate: module state cannot carry between them.
  const isolation = resolveIsolation(config, isolationFlag(flags.isolation));
  const isolate = new IsolatedRuns(sim.source, runHangMs, isolation.mode === "seed");
  let result: ShrinkResult;
  const display = createShrinkDisplay(io.stderr, io.stderr.isTTY === true && !isCI(io.env), c);
  try {
    io.stderr.write(`shrinking ${sim.name} seed ${seed}${recipe === "" ? "" : ` recipe "${recipe}"`}\n`);
    if (isolation.mode === "shared")
      io.stderr.write(
        c.yellow(
          `${sim.name}: isolation 'shared': candidate runs reused realms, so a run may depend on the module state ` +
            "the runs before it left; the shrunk run's replay is not guaranteed\n",
        ),
      );
    result = await shrinkTimeline(config, {
      seed,
      recipe,
      ...(maxRuns !== undefined ? { maxRuns } : {}),
      ...(timeBudgetMs !== undefined ? { timeBudgetMs } : {}),
      signal: interrupt.signal,
      stopOnStall: flags.stopOnStall !== false,
      isolate,
      onProgress: (p) => display.update(p),
    });
  } catch (error) {
    if (error instanceof NothingToShrink) throw new UsageError(error.message);
    throw error;
  } finally {
    display.end();
    await isolate.close();
  }

  const stopped = {
    fixpoint: "no candidate left",
    runs: "run budget spent",
    time: "time budget spent",
    interrupted: "interrupted",
    stalled: `the hunt stalled: no smaller failure in the last ${result.runs - result.bestAtRun} runs`,
  }[result.stoppedBy];
  if (result.stoppedBy === "stalled")
    io.stderr.write(
      `stopped: no smaller failure in the last ${result.runs - result.bestAtRun} runs; best found at run ${result.bestAtRun}: ${result.after.events} events, ${result.after.faults} faults\n`,
    );
  const lost =
    result.lostRuns === 0 ? "" : `, ${result.lostRuns} hung (no step for ${formatDuration(runHangMs)}) or lost`;
  const hunt =
    result.huntRuns === 0
      ? ""
      : `; ${result.huntRuns} of them hunting other draw sequences, ${result.huntHits} failing the same`;
  const how = `${result.runs} runs in ${formatDuration(result.wallMs)} (${stopped}${lost}${hunt})`;
  io.stdout.write(
    `${out.bold(`shrunk ${sim.name} seed ${seed}`)}: ${how}, still violates "${escapeTerminal(result.property)}"\n`,
  );
  for (const line of formatShrinkSummary(result)) io.stdout.write(`${line}\n`);
  const command = replayCommand({ configArg: flags.config ?? null }, sim.name, seed, result.recipe, result.overrides);
  io.stdout.write(`replay: ${command}\n`);
  if (flags.html === true) {
    // In a worker, as the candidates ran: a shrunk run that aborts or hangs loses its page only.
    const pool = new WorkerPool(1);
    const data = await replayTimelineInWorker(
      pool,
      { source: sim.source, overrides: { explore: false }, timelineOverrides: result.overrides },
      sim.name,
      seed,
      result.recipe,
      command,
      runHangMs,
    ).finally(() => pool.close());
    if (typeof data === "string") {
      io.stderr.write(c.yellow(`html: no timeline page for the shrunk run: ${data}\n`));
    } else {
      const outDir = flags.out === undefined ? fileConfig.reportDir : path.resolve(io.cwd, flags.out);
      const page = path.join(outDir, `timeline-${sim.name.replace(/[^A-Za-z0-9_.-]/g, "_")}-${seed}-shrunk.html`);
      await writeReportFile(page, renderTimelineHtml(data));
      io.stderr.write(`wrote ${path.relative(io.cwd, page)}\n`);
    }
  }
  const signal = interrupt.received();
  if (signal !== null && result.stoppedBy === "interrupted") return signalExitCode(signal);
  return EXIT_PASSED;
}
