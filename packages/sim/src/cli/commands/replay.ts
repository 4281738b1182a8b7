/**
 * `moonpool replay <simulation> --seed S [--recipe "..."]`: runs one timeline in this thread and
 * prints its story (`../replay-story.ts`: filtered by actor and level, injected faults folded,
 * stopping shortly after the failure), then its failures. Exits 1 when the
 * timeline still fails. `--from report.json` takes the simulation, seed and recipe of a failure
 * recorded in a JSON report instead. `--html` also writes the timeline page of the seed into the
 * report directory (or `--out`).
 */
import path from "node:path";
import { TRACE_LEVEL_ORDER, type TraceLevel } from "@moonpool/core";
import { parseRecipe, RecipeParseError } from "../../engine/recipe.ts";
import { Campaign } from "../../runner/campaign.ts";
import { versionMismatchWarning } from "../../runner/determinism.ts";
import { formatDuration } from "../../runner/report-format.ts";
import { formatFailure } from "../../runner/seed-result.ts";
import type { TraceEvent } from "../../world/trace-log.ts";
import { buildSimulationConfig } from "../build-simulation.ts";
import { colorsFor, type Colors } from "../colors.ts";
import { loadConfig } from "../config-file.ts";
import { discoverSimulations, findSimulation, formatLoadFailure } from "../discovery.ts";
import { EXIT_FAILED, EXIT_PASSED, UsageError } from "../errors.ts";
import type { CliIO } from "../io.ts";
import { parsePositiveInteger, parseSeed, parseTraceLevel } from "../option-values.ts";
import { hangLimitMs, hangTimeoutFlag } from "../hang-timeout.ts";
import { isReplayChild, replayInChild, runSimulatedCode } from "../replay-watchdog.ts";
import { AFTER_FAILURE_MS, buildSliceStory, buildStory, SEED_FAILURE_EVENT_NAME } from "../replay-story.ts";
import { replayCommand } from "../replay-command.ts";
import { REPLAY_FILE_ENV, simulationFileOf } from "../replay-file.ts";
import { renderTimelineHtml, replayTimeline, timelineFileName } from "../reporters/html/index.ts";
import { readRunReport } from "../run-report.ts";
import { writeReportFile } from "../report-files.ts";
import { escapeTerminal } from "../terminal-text.ts";
import {
  OverridesParseError,
  parseOverrides,
  withOverrides,
  type TimelineOverrides,
} from "../../runner/shrink/overrides.ts";

/** `--overrides` text, or a usage error that names the bad item. */
export function parseOverridesFlag(text: string): TimelineOverrides {
  try {
    return parseOverrides(text);
  } catch (error) {
    if (error instanceof OverridesParseError) throw new UsageError(`--overrides: ${error.message}`);
    throw error;
  }
}

export { actorMatches } from "../replay-story.ts";

export interface ReplayFlags {
  readonly config?: string;
  readonly seed?: string;
  readonly recipe?: string;
  /** A shrunk run's overrides (`moonpool shrink` prints them), e.g. "injector=off,window=750". */
  readonly overrides?: string;
  readonly actor?: readonly string[];
  readonly level?: string;
  readonly trace?: boolean;
  readonly from?: string;
  readonly failure?: string;
  /** Print every injected fault (default: folded into count lines). */
  readonly faults?: boolean;
  /** Go on to the end of the run (default: stop shortly after the failure). */
  readonly full?: boolean;
  /** Print the failure's causal slice after the trace (default: yes). */
  readonly slice?: boolean;
  readonly html?: boolean;
  readonly out?: string;
  /** Wall-clock limit of the replay (default: the per-seed limit of `run`). */
  readonly hangTimeout?: string;
  /** The older name of `hangTimeout`. */
  readonly timeout?: string;
}

function levelColour(level: TraceLevel, text: string, c: Colors): string {
  return level === "error" ? c.red(text) : level === "warn" ? c.yellow(text) : level === "debug" ? c.dim(text) : text;
}

interface Target {
  readonly simulation: string;
  readonly seed: number;
  readonly recipe: string;
}

async function targetFromReport(flags: ReplayFlags, io: CliIO | null): Promise<Target> {
  const file = await readRunReport(flags.from!);
  const failures = file.simulations.flatMap((s) =>
    s.failures.map((f) => ({ simulation: s.name, seed: f.seed, recipe: f.recipe })),
  );
  if (failures.length === 0) throw new UsageError(`--from ${flags.from}: the report records no failure to replay`);
  const n = flags.failure === undefined ? 1 : parsePositiveInteger(flags.failure, "--failure", "1");
  if (n > failures.length) throw new UsageError(`--failure ${n}: the report records ${failures.length} failure(s)`);
  io?.stderr.write(`replaying failure ${n} of ${failures.length} recorded in ${flags.from}\n`);
  const warning = versionMismatchWarning(file);
  if (warning !== null) io?.stderr.write(`warning: ${warning}\n`);
  return failures[n - 1]!;
}

/**
 * The one file the replay child loads, or null when the simulation cannot be told yet (a bad
 * flag, an unknown name): the child then reports the problem the way it always did.
 */
async function replayFileFor(simulationArg: string | undefined, flags: ReplayFlags, io: CliIO): Promise<string | null> {
  try {
    const name = flags.from !== undefined ? (await targetFromReport(flags, null)).simulation : simulationArg;
    if (name === undefined) return null;
    return await simulationFileOf(await loadConfig(io.cwd, flags.config), name);
  } catch {
    return null;
  }
}

export async function replayCommandRun(
  simulationArg: string | undefined,
  flags: ReplayFlags,
  io: CliIO,
): Promise<number> {
  if (!isReplayChild(io)) {
    const flagMs = hangTimeoutFlag(flags);
    // A config file that does not load is reported by the child, as it always was.
    const fileMs =
      flagMs === null
        ? await loadConfig(io.cwd, flags.config).then(
            (c) => c.hangTimeoutMs,
            () => null,
          )
        : null;
    const file = await replayFileFor(simulationArg, flags, io);
    return replayInChild(hangLimitMs(flagMs, fileMs), io, file === null ? {} : { [REPLAY_FILE_ENV]: file });
  }
  let target: Target;
  if (flags.from !== undefined) {
    if (simulationArg !== undefined || flags.seed !== undefined)
      throw new UsageError("--from takes the simulation, seed and recipe from the report: do not also pass them");
    target = await targetFromReport(flags, io);
  } else {
    if (simulationArg === undefined)
      throw new UsageError(
        "replay needs a simulation name and --seed S (e.g. moonpool replay leader-election --seed 42), or --from report.json",
      );
    if (flags.seed === undefined)
      throw new UsageError(`replay ${simulationArg}: --seed S is required (the failing seed printed by moonpool run)`);
    target = { simulation: simulationArg, seed: parseSeed(flags.seed, "--seed"), recipe: flags.recipe ?? "" };
  }
  let recipe: ReturnType<typeof parseRecipe>;
  try {
    recipe = parseRecipe(target.recipe);
  } catch (error) {
    if (error instanceof RecipeParseError) throw new UsageError(`--recipe: ${error.message}`);
    throw error;
  }
  const minLevel = flags.level === undefined ? "info" : parseTraceLevel(flags.level);
  const fileConfig = await loadConfig(io.cwd, flags.config);
  // Only the simulation's own file, as in a run's worker (replay-file.ts).
  const discovered = await discoverSimulations(
    fileConfig,
    (failure) => io.stderr.write(`${escapeTerminal(formatLoadFailure(failure))}\n`),
    io.env[REPLAY_FILE_ENV],
  );
  const sim = findSimulation(discovered, target.simulation);
  let config = buildSimulationConfig(sim.definition, { explore: false }, sim.source);
  const overrides = flags.overrides ?? "";
  config = withOverrides(config, parseOverridesFlag(overrides));
  let events: readonly TraceEvent[] = [];
  // The highest recipe step whose reseed point a draw went past (0: the root segment only).
  let stepsReached = 0;
  const { result } = await runSimulatedCode(() =>
    new Campaign(config).runSingleSeed(target.seed, {
      breakpoints: recipe,
      explore: false,
      // Events below the simulation's own trace level are kept aside: the replay hashes as the run did.
      // Debug events (messages) are kept for the causal slice whatever level is printed.
      keepLevel: flags.slice === false || flags.trace === false ? minLevel : "debug",
      onTrace: (all) => (events = all),
      drawObserver: () => (segment) => {
        if (segment > stepsReached) stepsReached = segment;
      },
    }),
  );
  if (stepsReached < recipe.length) {
    const missed = recipe[stepsReached]!;
    io.stderr.write(
      `warning: step ${stepsReached + 1} of the recipe (${missed.count}@${missed.seed}) was never reached: the timeline made fewer than ` +
        `${missed.count} draws after ${stepsReached === 0 ? "its start" : `step ${stepsReached}`}, so this replayed ` +
        `${stepsReached === 0 ? "the root timeline" : `only the first ${stepsReached} step(s)`}, not the recorded one. ` +
        "Check the seed and the recipe, and whether the simulation changed since the run\n",
    );
  }

  const c = colorsFor(io.stdout);
  const actors = flags.actor ?? [];
  if (flags.trace !== false) {
    const floor = TRACE_LEVEL_ORDER[minLevel];
    const printable = events.filter((e) => TRACE_LEVEL_ORDER[e.level] >= floor || e.name === SEED_FAILURE_EVENT_NAME);
    const story = buildStory(printable, { minLevel, actors, faults: flags.faults === true, full: flags.full === true });
    for (const line of story.lines) {
      if (line.kind === "folded") io.stdout.write(c.dim(line.text) + "\n");
      else if (line.failure) io.stdout.write(c.red(`✗ ${escapeTerminal(line.event.format())}`) + "\n");
      else io.stdout.write(levelColour(line.event.level, escapeTerminal(line.event.format()), c) + "\n");
    }
    if (story.cut > 0)
      io.stdout.write(
        c.dim(
          `… the trace stops ${AFTER_FAILURE_MS} ms after the failure: ${story.cut} more events to the end of the run (--full shows them)`,
        ) + "\n",
      );
    const foldedText = story.folded > 0 ? `, ${story.folded} injected faults folded` : "";
    const slice = flags.slice === false ? null : buildSliceStory(events, result.failures[0]?.actor);
    if (slice !== null) {
      io.stdout.write(
        `causal slice of the failure: ${slice.events.length} of ${slice.of} events, its happens-before past (--no-slice hides it)\n`,
      );
      for (const event of slice.events) {
        const text = `  ${escapeTerminal(event.format())}`;
        io.stdout.write(
          (event.name === SEED_FAILURE_EVENT_NAME ? c.red(text) : levelColour(event.level, text, c)) + "\n",
        );
      }
    }
    io.stderr.write(
      `${story.shown} of ${printable.length} trace events shown${foldedText}${actors.length > 0 ? ` (actors: ${actors.join(", ")})` : ""}, level >= ${minLevel}\n`,
    );
  }
  if (flags.html === true) {
    // Its own run, keeping debug events (messages) aside: the page and this output show the run's hash.
    const command = replayCommand({ configArg: flags.config ?? null }, sim.name, target.seed, target.recipe, overrides);
    const data = await runSimulatedCode(() => replayTimeline(config, sim.name, target.seed, target.recipe, command));
    const outDir = flags.out === undefined ? fileConfig.reportDir : path.resolve(io.cwd, flags.out);
    const page = path.join(outDir, timelineFileName(sim.name, target.seed, target.recipe));
    await writeReportFile(page, renderTimelineHtml(data));
    const relative = path.relative(io.cwd, page);
    io.stderr.write(`wrote ${relative.startsWith("..") || path.isAbsolute(relative) ? page : relative}\n`);
  }
  const overridden = overrides.trim().length > 0 ? ` overrides "${overrides.trim()}"` : "";
  const recipeText = target.recipe.length > 0 ? ` recipe "${target.recipe}"` : "";
  const timeline = `${sim.name} seed ${target.seed}${recipeText}${overridden}`;
  const facts = `sim=${formatDuration(result.simulatedTimeMs)} events=${result.eventsProcessed} hash=${result.traceHash}`;
  if (result.ok) {
    io.stdout.write(`${c.green("PASSED")} ${timeline} ${facts}\n`);
    return EXIT_PASSED;
  }
  io.stdout.write(`${c.red("FAILED")} ${timeline} ${facts}\n`);
  for (const f of result.failures) io.stdout.write(`  ${escapeTerminal(formatFailure(f))}\n`);
  return EXIT_FAILED;
}
