/**
 * The `moonpool` command line: a thin shell over the commands (each a function of flags and IO)
 * so that what it does can be read in one place. main.ts runs it; bin/moonpool.mjs loads it
 * compiled before it registers tsx.
 */
import { Command, Option } from "commander";
import { PACKAGE_VERSION } from "../runner/report.ts";
import { CHECK_HISTORY_MODELS, checkHistoryCommand, type CheckHistoryFlags } from "./commands/check-history.ts";
import { explainCommand, type ExplainFlags } from "./commands/explain.ts";
import { initCommand } from "./commands/init.ts";
import { listCommand } from "./commands/list.ts";
import { mergeCommand, type MergeFlags } from "./commands/merge.ts";
import { replayCommandRun, type ReplayFlags } from "./commands/replay.ts";
import { runCommand, type RunFlags } from "./commands/run.ts";
import { runWatch } from "./commands/run-watch.ts";
import { givenOptions, SEED_CHOOSING_OPTIONS } from "./watch/child-args.ts";
import { shrinkCommand, type ShrinkFlags } from "./commands/shrink.ts";
import { CliError, EXIT_USAGE } from "./errors.ts";
import { processIO } from "./io.ts";
import { EXPLORE_ROUND_ROOT_SEEDS } from "../runner/pool/pool-campaign.ts";

const collect = (value: string, previous: string[]): string[] => [...previous, value];

const RUN_HELP = `
Seeds: --seed and --seeds run exactly those seeds; --iterations N runs N seeds derived from the
base seed (the simulation's debug seeds first); --until-stable QUIET,MAX runs seeds until QUIET
consecutive seeds reach no new sometimes-assertion or sometimesEach bucket (at most MAX, at least
MIN); --budget N spends N timelines adaptively between fresh seeds and continuations of promising
timelines. Without these flags the simulation's own builder settings apply, then the moonpool
config, then --budget 1000 (--quick: until-stable 10,1000). The report says how the budget was
split and in one line why the campaign stopped.
The base seed is --base-seed, else the simulation's setBaseSeed, else the wall clock (printed).

Progress: time estimates are upper bounds from the measured rate, shown only where the remaining
work is bounded (a fixed plan's seeds, an until-stable cap); until coverage is stable the status
line says what the stop rule waits for (minimum, unreached sometimes, quiet seeds). NO_COLOR turns
colours off, FORCE_COLOR on (NO_COLOR wins).

--watch: runs again whenever a selected simulation file, a local module it imports (transitively,
not packages) or the config file changes, each run a fresh moonpool run process with the same
flags. Keys: a or Enter rerun all, f rerun the failing seeds of the last run, q quit (the last
run's exit status); Ctrl-C quits with 130.

Workers: each seed runs in a worker thread with a fresh assertion table; the main thread merges
the tables in seed order, so every --workers N gives the same report (except wall-clock fields:
host.* and every wallTimeMs / totalWallTimeMs).

--explore: root seeds are explored in rounds of ${EXPLORE_ROUND_ROOT_SEEDS} consecutive seeds; each root
seed of a round starts from the coverage merged up to the start of its round, so results do not
depend on the number of workers. With --shard, rounds start at the shard's first seed. Every root
seed runs its budget of timelines (--explore-budget) unless it fails first: a root ends at its first
failing timeline unless --no-stop-on-failure. Progress and the time bound count timelines.
--explore-total-budget N budgets the whole run instead: every root seed gets floor(N / seeds) (at
least 1), so --iterations 20 --explore-total-budget 5000 explores each of 20 roots with 250.

Shards: --shard i/n runs the i-th of n contiguous blocks of seed indexes (1 <= i <= n); n
machines with the same flags and --base-seed run exactly the seeds of one unsharded run, each
once, and 'moonpool merge' combines their JSON reports into what that run would have written.
--shard auto/n takes i from JOB_COMPLETION_INDEX (Kubernetes Indexed Job, 0-based) or
MOONPOOL_SHARD_INDEX (1-based; set it from a CI matrix variable), e.g. in GitHub Actions:
  npx moonpool run --shard \${{ matrix.shard }}/4 --iterations 10000 --base-seed \${{ github.run_id }} --reporter json
Until-stable campaigns cannot be sharded (the stop rule depends on every earlier seed).

Reading the report: failures are grouped by what they violated, the earliest-failing seed first
(least simulated time) with its source location and replay command, the others as a --seeds
list. #N is a seed's 0-based position in the campaign (JSON seeds[].index). hash: the seed's
trace hash (equal hashes, identical timelines). watermark: the best value a numeric assertion
reached. saturated: every sometimes/reachable assertion was hit and no new one for the quiet
seeds. Never Evaluated: safety assertions in the source that no seed reached.
Simulations defined with expectFailure: true (planted bugs) pass when a seed fails.

Exit status: 0 passed; 1 a seed failed, a safety assertion was violated or a seed hung (no
engine step for --hang-timeout) (coverage gaps and until-stable's cap too with --strict-coverage); 2 usage or loading
error, or a simulation file failed to load (the others still run); 74 a report file could not be
written (one line names it and the errno; no half-written file is left under its name); 130, 143,
129 stopped by SIGINT, SIGTERM, SIGHUP (the report of the seeds that ran is still written; a
second signal quits at once). With --shard the status is the shard's: a simulation defined with
expectFailure passes a shard in which no seed failed ('moonpool merge' judges the campaign).`;

const MERGE_HELP = `
Each shard must hold exactly the seeds of its plan (its block of seed indexes, each once) and be
a valid report (packages/sim/report.schema.json, value ranges included).
Exit status: 0 the merged campaign passed; 1 it failed (expectFailure simulations are judged
here, over all shards); 2 the reports cannot be merged (missing or overlapping shards, a shard
missing seeds of its plan, a damaged or edited report); 74 the merged report could not be written.`;

export function createProgram(): Command {
  const io = processIO();
  const program = new Command("moonpool")
    .description("Deterministic simulation campaigns: list, run, replay and merge simulations (*.sim.ts files).")
    .version(PACKAGE_VERSION)
    // One line and a suggestion for a mistyped option, not the whole help (subcommands inherit this).
    .showHelpAfterError("(add --help for the options)")
    .exitOverride();

  program
    .command("init")
    .description("set this folder up: moonpool.config.mts, a first simulation, a simulate script (never overwrites)")
    .action(async () => {
      process.exitCode = await initCommand(io);
    });

  program
    .command("list")
    .description("list the simulations found (name, description, file)")
    .argument("[filter...]", "names, or parts of names or file paths")
    .option("-c, --config <file>", "config file (default: moonpool.config.{ts,mts,js,mjs} in this folder)")
    .action(async (filters: string[], flags: { config?: string }) => {
      process.exitCode = await listCommand(filters, flags, io);
    });

  program
    .command("run")
    .description("run simulation campaigns")
    .argument("[filter...]", "simulation names (exact), or parts of names or file paths; none: all")
    .option("-s, --seed <seed>", "run exactly this seed")
    .option("--seeds <list>", "run exactly these seeds, e.g. 1,2,3 (the lists reports print)")
    .option("--last-failed", "rerun the failing seeds recorded in the last JSON report (<out>/report.json)")
    .option("--seeds-from <report.json>", "rerun the failing seeds recorded in this JSON report")
    .option("-n, --iterations <n>", "run n seeds derived from the base seed")
    .option(
      "--until-stable <quiet,max[,min]>",
      "run until coverage is stable for QUIET seeds, at most MAX seeds, at least MIN",
    )
    .option(
      "--budget <timelines>",
      "one budget of timelines split between fresh seeds and continuations of promising timelines (the default, 1000)",
    )
    .option("--quick", "until coverage is stable (10 quiet seeds, at most 1,000), no minimum: a quick smoke run")
    .option("--base-seed <seed>", "base seed of derived seeds (same on every shard)")
    .option("-j, --workers <n>", "worker threads (default: config, else the number of cores)")
    .option(
      "--isolation <mode>",
      "seed: a fresh realm per seed (the default); shared: realms reused across seeds (replays not guaranteed)",
    )
    .option(
      "--explore",
      "explore every root seed in depth (exploration with default settings, unless the simulation configures it)",
    )
    .option(
      "--explore-budget <n>",
      "with --explore (implied): timelines per root seed (default: the simulation's, else 2000)",
    )
    .option(
      "--explore-total-budget <n>",
      "with --explore (implied): timelines for all root seeds together, floor(n / seeds) each (needs a fixed number of seeds)",
    )
    .option(
      "--no-stop-on-failure",
      "with --explore: keep exploring a root seed after its first failure (spend its whole budget)",
    )
    .option("--shard <i/n>", "run shard i of n (or auto/n: i from JOB_COMPLETION_INDEX or MOONPOOL_SHARD_INDEX)")
    .option(
      "-r, --reporter <name>",
      "text, json, junit, html; repeat or comma-separate for several (default: config, else text)",
      collect,
      [],
    )
    .option("-o, --out <dir>", "folder for json and junit reports (default: config, else moonpool-reports)")
    .option("--bail [n]", "stop after n failing seeds, in seed order (default n: 1)")
    .option("-x", "stop at the first failing seed (--bail 1)")
    .option(
      "--hang-timeout <duration>",
      "a seed fails as hung when no engine step of it starts for this long, e.g. 30s or 5m; it fails alone, " +
        "the run goes on; a seed that keeps stepping is never stopped, an explored root included (default: 60s)",
    )
    .option("--timeout <duration>", "older name of --hang-timeout (once a wall-clock limit of the whole seed)")
    .option(
      "--strict-coverage",
      "also fail on coverage gaps, never-evaluated safety assertions, and when until-stable hits its cap",
    )
    .option(
      "--coverage",
      "code coverage of the system under test: a plateau signal; lcov.info and HTML in <out>/coverage",
    )
    .option(
      "-w, --watch",
      "run again when a simulation file or a local file it imports changes; keys: a or Enter rerun all, f the failed seeds, q quit",
    )
    .addOption(new Option("--watch-report <file>").hideHelp())
    .option("-c, --config <file>", "config file (default: moonpool.config.{ts,mts,js,mjs} in this folder)")
    .addHelpText("after", RUN_HELP)
    .action(async (filters: string[], flags: RunFlags, command: Command) => {
      if (flags.watch !== true) {
        process.exitCode = await runCommand(filters, flags, io);
        return;
      }
      const own = ["watch", "watchReport"];
      const plan = {
        filters,
        allArgs: givenOptions(command, new Set(own)),
        failedArgs: givenOptions(command, new Set([...own, ...SEED_CHOOSING_OPTIONS])),
        ...(flags.config === undefined ? {} : { config: flags.config }),
      };
      process.exitCode = await runWatch(plan, io, process.stdin);
    });

  program
    .command("replay")
    .description("replay one timeline, print its trace; exit 1 when it still fails")
    .argument("[simulation]", "the simulation's name")
    .option("-s, --seed <seed>", "the seed to replay")
    .option("--recipe <recipe>", 'exploration recipe, e.g. "151@8837201 -> 80@1293847"')
    .option("--overrides <overrides>", 'a shrunk run\'s overrides (moonpool shrink prints them), e.g. "window=750"')
    .option("--actor <name>", "only events of this actor (e.g. node-1 or node-1@10.0.1.1); repeatable", collect, [])
    .addOption(
      new Option(
        "-l, --level <level>",
        "lowest trace level shown (debug also shows debug events; the trace hash stays the run's)",
      ).choices(["debug", "info", "warn", "error"]),
    )
    .option("--faults", "print every injected fault (default: folded into count lines)")
    .option("--full", "print the trace to the end of the run (default: stop shortly after the failure)")
    .option("--no-trace", "print only the outcome, not the trace")
    .option("--no-slice", "do not print the failure's causal slice (its happens-before past) after the trace")
    .option("--from <report.json>", "replay a failure recorded in a JSON report")
    .option("--failure <n>", "with --from: which failure (default 1)")
    .option("--html", "also write the timeline page (a self-contained HTML file) into the report directory")
    .option("--out <dir>", "with --html: the folder to write the page into (default: reportDir of the config)")
    .option(
      "--hang-timeout <duration>",
      "the replay is stopped, exit 1, when no engine step starts for this long, e.g. 30s or 5m (default: 60s)",
    )
    .option("--timeout <duration>", "older name of --hang-timeout (once a wall-clock limit of the whole replay)")
    .option("-c, --config <file>", "config file (default: moonpool.config.{ts,mts,js,mjs} in this folder)")
    .action(async (simulation: string | undefined, flags: ReplayFlags) => {
      process.exitCode = await replayCommandRun(simulation, flags, io);
    });

  program
    .command("shrink")
    .description("search for a smaller run of a failing timeline that violates the same property")
    .argument("[simulation]", "the simulation's name")
    .option("-s, --seed <seed>", "the failing seed")
    .option("--recipe <recipe>", "the failing timeline's exploration recipe, if any")
    .option("--max-runs <n>", "candidate runs at most (default 1000)")
    .option("--time-budget <duration>", "wall-clock budget, e.g. 30s or 5m (default 2m), then the best run so far")
    .option(
      "--no-stop-on-stall",
      "keep hunting after the stall rule (the hunt for other draw sequences stops after max(300, h) runs without a smaller failure, h: the runs before it)",
    )
    .option(
      "--hang-timeout <duration>",
      "a candidate run with no engine step for this long is stopped and not kept (default 60s)",
    )
    .option("--timeout <duration>", "older name of --hang-timeout (once a wall-clock limit of one candidate run)")
    .option(
      "--isolation <mode>",
      "seed: a fresh realm per candidate run (the default); shared: realms reused across runs (replays not guaranteed)",
    )
    .option("--html", "also write the shrunk run's timeline page into the report directory")
    .option("--out <dir>", "with --html: the folder to write the page into (default: reportDir of the config)")
    .option("-c, --config <file>", "config file (default: moonpool.config.{ts,mts,js,mjs} in this folder)")
    .action(async (simulation: string | undefined, flags: ShrinkFlags) => {
      process.exitCode = await shrinkCommand(simulation, flags, io);
    });

  program
    .command("explain")
    .description(
      "when did a failing timeline become doomed: re-runs it with the randomness changed after each cut point",
    )
    .argument("[simulation]", "the simulation's name")
    .option("-s, --seed <seed>", "the failing seed")
    .option("--recipe <recipe>", "the failing timeline's exploration recipe, if any")
    .option("--budget <n>", "re-runs in all, split evenly over the cut points (default 180)")
    .option(
      "--cuts <n>",
      "cut points of the sweep over simulated time, at least 8 (default 12); half as many refine it",
    )
    .option("--json", "print the curve, verdict and doomed window as JSON")
    .option(
      "--hang-timeout <duration>",
      "a re-run with no engine step for this long is stopped and counted lost (default 60s)",
    )
    .option("--timeout <duration>", "older name of --hang-timeout")
    .option(
      "--isolation <mode>",
      "seed: a fresh realm per re-run (the default); shared: realms reused across runs (results not guaranteed)",
    )
    .option("--html", "also write the timeline page, with the doom curve, into the report directory")
    .option("--out <dir>", "with --html: the folder to write the page into (default: reportDir of the config)")
    .option("-c, --config <file>", "config file (default: moonpool.config.{ts,mts,js,mjs} in this folder)")
    .action(async (simulation: string | undefined, flags: ExplainFlags) => {
      process.exitCode = await explainCommand(simulation, flags, io);
    });

  program
    .command("merge")
    .description(
      "merge shard reports (JSON) into one; byte-identical for the same inputs in any order. Shards run with " +
        "--coverage: also lcov.info and HTML in coverage/ next to the merged report (from each shard's coverage folder)",
    )
    .argument("<reports...>", "report.json files of the shards")
    .option(
      "-o, --output <file>",
      "write the merged report here, - for stdout (default: report.json in the config's reportDir)",
    )
    .option("-c, --config <file>", "config file (for reportDir and the project root of --coverage sources)")
    .option("--junit <file>", "also write JUnit XML")
    .addHelpText("after", MERGE_HELP)
    .action(async (files: string[], flags: MergeFlags) => {
      process.exitCode = await mergeCommand(files, flags, io);
    });
  program
    .command("check-history")
    .description(
      "check a recorded history for linearizability (Jepsen EDN, or JSON); exit 0 linearizable, 1 not, 3 unknown, 2 no verdict",
    )
    .argument("<file>", "history file: .edn (Jepsen/Knossos) or .json (the same records, or HistoryRecorder events)")
    .option("--model <name>", `model to check against: ${CHECK_HISTORY_MODELS.join(", ")}`)
    .option("--initial <json>", "initial state of the model as JSON (default: null for registers, empty for maps)")
    .option("--timeout <duration>", "give up as unknown after this long, e.g. 10s (default: no limit)")
    .option("--html <file>", "also write a self-contained HTML view of the result")
    .action(async (file: string, flags: CheckHistoryFlags) => {
      process.exitCode = await checkHistoryCommand(file, flags, io);
    });
  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync(argv as string[], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    const e = error as { code?: string; exitCode?: number };
    // commander has already printed its own message (and help) for its errors.
    if (typeof e.code === "string" && e.code.startsWith("commander.")) return e.exitCode === 0 ? 0 : EXIT_USAGE;
    if (error instanceof CliError) {
      process.stderr.write(`moonpool: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
