/**
 * `moonpool explain <simulation> --seed S [--recipe R] [--budget N] [--cuts K] [--json]`: when did
 * a failing timeline become doomed? Re-runs it with the randomness changed after each cut point
 * (`runner/explain.ts`), progress on stderr, then the curve, the verdict and the doomed window on
 * stdout (text or JSON, the same for the same budget). Exit 0 when it printed a result, 2 for
 * usage errors (a seed that passes among them), 130 / 143 / 129 when a signal stopped it (the
 * curve so far is still printed), 74 when the `--html` page could not be written.
 */
import path from "node:path";
import {
  DEFAULT_EXPLAIN_BUDGET,
  DEFAULT_EXPLAIN_CUTS,
  doomOf,
  explainFailure,
  ExplainError,
  MIN_EXPLAIN_CUTS,
  type ExplainResult,
} from "../../runner/explain.ts";
import { resolveIsolation } from "../../runner/isolation.ts";
import { WorkerPool } from "../../runner/pool/worker-pool.ts";
import { IsolatedRuns } from "../../runner/shrink/isolated-runs.ts";
import { buildSimulationConfig } from "../build-simulation.ts";
import { colorsFor, isCI } from "../colors.ts";
import { loadConfig } from "../config-file.ts";
import { discoverSimulations, findSimulation, formatLoadFailure } from "../discovery.ts";
import { explainJson, formatExplainText } from "../doom-text.ts";
import { EXIT_PASSED, UsageError } from "../errors.ts";
import { hangLimitMs, hangTimeoutFlag } from "../hang-timeout.ts";
import type { CliIO } from "../io.ts";
import { isolationFlag } from "../isolation-flag.ts";
import { parsePositiveInteger, failingTimelineFlags } from "../option-values.ts";
import { replayCommand } from "../replay-command.ts";
import { writeReportFile } from "../report-files.ts";
import { renderTimelineHtml, replayTimelineInWorker } from "../reporters/html/index.ts";
import { escapeTerminal } from "../terminal-text.ts";
import { onTermination, signalExitCode } from "../termination.ts";

export interface ExplainFlags {
  readonly config?: string;
  readonly seed?: string;
  readonly recipe?: string;
  readonly budget?: string;
  readonly cuts?: string;
  readonly json?: boolean;
  readonly hangTimeout?: string;
  /** The older name of `hangTimeout`. */
  readonly timeout?: string;
  readonly isolation?: string;
  readonly html?: boolean;
  readonly out?: string;
}

export async function explainCommand(
  simulationArg: string | undefined,
  flags: ExplainFlags,
  io: CliIO,
): Promise<number> {
  const { simulation, seed, recipe } = failingTimelineFlags("explain", simulationArg, flags);
  const budget =
    flags.budget === undefined ? DEFAULT_EXPLAIN_BUDGET : parsePositiveInteger(flags.budget, "--budget", "180");
  const cuts = flags.cuts === undefined ? DEFAULT_EXPLAIN_CUTS : parsePositiveInteger(flags.cuts, "--cuts", "12");
  if (cuts < MIN_EXPLAIN_CUTS)
    throw new UsageError(`--cuts '${flags.cuts}': at least ${MIN_EXPLAIN_CUTS} cut points, e.g. --cuts 12`);
  const hangFlagMs = hangTimeoutFlag(flags);
  const fileConfig = await loadConfig(io.cwd, flags.config);
  const discovered = await discoverSimulations(fileConfig, (failure) =>
    io.stderr.write(`${escapeTerminal(formatLoadFailure(failure))}\n`),
  );
  const sim = findSimulation(discovered, simulation);
  const config = buildSimulationConfig(sim.definition, { explore: false }, sim.source);
  const runHangMs = hangLimitMs(hangFlagMs, fileConfig.hangTimeoutMs);
  const c = colorsFor(io.stderr);
  const interrupt = onTermination((signal) =>
    io.stderr.write(
      c.yellow(
        `interrupted by ${signal}: stopping after this run, printing the curve so far (${signal === "SIGINT" ? "Ctrl-C" : "a second signal"} again quits at once)\n`,
      ),
    ),
  );
  // The re-runs go through shrink's worker: each under the hang limit, a fresh realm apiece with isolation "seed".
  const isolation = resolveIsolation(config, isolationFlag(flags.isolation));
  const isolate = new IsolatedRuns(sim.source, runHangMs, isolation.mode === "seed");
  const live = io.stderr.isTTY === true && !isCI(io.env);
  let result: ExplainResult;
  try {
    io.stderr.write(`explaining ${sim.name} seed ${seed}${recipe === "" ? "" : ` recipe "${recipe}"`}\n`);
    result = await explainFailure(config, {
      seed,
      recipe,
      budget,
      cuts,
      isolate,
      signal: interrupt.signal,
      onProgress: (p) => {
        if (live) io.stderr.write(`\r  ${p.runs} of at most ${p.budget} runs`);
      },
    });
  } catch (error) {
    if (error instanceof ExplainError) throw new UsageError(error.message);
    throw error;
  } finally {
    if (live) io.stderr.write("\n");
    await isolate.close();
  }
  const replay = replayCommand({ configArg: flags.config ?? null }, sim.name, seed, result.recipe);
  if (flags.json === true) io.stdout.write(`${JSON.stringify(explainJson(sim.name, result, replay), null, 2)}\n`);
  else
    for (const line of formatExplainText(sim.name, result, replay, colorsFor(io.stdout))) io.stdout.write(`${line}\n`);

  if (flags.html === true) {
    const pool = new WorkerPool(1);
    const data = await replayTimelineInWorker(
      pool,
      { source: sim.source, overrides: { explore: false } },
      sim.name,
      seed,
      result.recipe,
      replay,
      runHangMs,
    ).finally(() => pool.close());
    if (typeof data === "string") {
      io.stderr.write(c.yellow(`html: no timeline page: ${data}\n`));
    } else {
      const outDir = flags.out === undefined ? fileConfig.reportDir : path.resolve(io.cwd, flags.out);
      const page = path.join(outDir, `timeline-${sim.name.replace(/[^A-Za-z0-9_.-]/g, "_")}-${seed}-explained.html`);
      await writeReportFile(page, renderTimelineHtml({ ...data, doom: doomOf(result) }));
      io.stderr.write(`wrote ${path.relative(io.cwd, page)}\n`);
    }
  }
  const signal = interrupt.received();
  if (signal !== null && result.interrupted) return signalExitCode(signal);
  return EXIT_PASSED;
}
