/**
 * Runs the Paxos simulation from the command line and exits non-zero if it found a bug.
 *
 *   node --import tsx examples/paxos/run.ts                              # full campaign until coverage is stable (at most 500 seeds)
 *   node --import tsx examples/paxos/run.ts --stage smoke --seeds 1      # one stage of the README's path
 *   node --import tsx examples/paxos/run.ts --seeds 500                  # exactly 500 seeds
 *   node --import tsx examples/paxos/run.ts --bug promise-before-persist --seed 3 --explore 10
 *   node --import tsx examples/paxos/run.ts --bug adopt-first-reported-value --seed 3 --recipe '87@2280495751834317 -> 28@5381902066545799'
 *
 * Stages: smoke, baseline, isolation, network-random, network-swarm, storage-random, storage-swarm,
 * attrition, reboots, campaign (the default).
 * `--explore N` explores each root seed with N timelines (workers: 0). `--seed S` replays one
 * seed; with `--recipe R` one explored timeline. The report goes to stderr; stdout gets one
 * summary line for scripts and CI, with the command that replays the first failure.
 */
import { parseArgs } from "node:util";
import { formatDuration, type SimulationReport } from "@moonpool/sim";
import { PAXOS_BUGS, type PaxosBug } from "./node.ts";
import { PAXOS_STAGES, type PaxosStage } from "./simulation.ts";

const USAGE = `usage: run.ts [--stage ${Object.keys(PAXOS_STAGES).join("|")}] [--seeds N] [--seed SEED [--recipe R]] [--explore N] [--bug ${PAXOS_BUGS.join("|")}]`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function integer(text: string | undefined, what: string, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) fail(`${what} must be an integer >= ${min}, got '${text}'`);
  return n;
}

let values: { stage?: string; seeds?: string; seed?: string; recipe?: string; explore?: string; bug?: string };
try {
  ({ values } = parseArgs({
    options: {
      stage: { type: "string" },
      seeds: { type: "string" },
      seed: { type: "string" },
      recipe: { type: "string" },
      explore: { type: "string" },
      bug: { type: "string" },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
const stage = (values.stage ?? "campaign") as PaxosStage;
if (!(stage in PAXOS_STAGES)) fail(`unknown --stage '${values.stage}'`);
if (values.bug !== undefined && !(PAXOS_BUGS as readonly string[]).includes(values.bug))
  fail(`unknown --bug '${values.bug}'`);
const bug = values.bug as PaxosBug | undefined;
const seeds = integer(values.seeds, "--seeds", 1);
const replaySeed = integer(values.seed, "--seed", 0);
const explore = integer(values.explore, "--explore", 1);
if (values.recipe !== undefined && replaySeed === undefined) fail("--recipe needs --seed");

const builder = PAXOS_STAGES[stage](bug === undefined ? {} : { bug });
if (replaySeed !== undefined && values.recipe !== undefined) builder.replayTimeline(replaySeed, values.recipe);
else if (replaySeed !== undefined) builder.setDebugSeeds([replaySeed]).setIterations(1);
else if (seeds !== undefined) builder.setIterations(seeds);
else builder.untilCoverageStable(10, 500);
if (explore !== undefined && values.recipe === undefined) {
  builder.enableExploration({
    workers: 0,
    maxRunsPerSeed: explore,
    branchingFactor: 4,
    maxFrontier: 512,
    maxRecipeLen: 32,
  });
}

const report: SimulationReport = await builder.run();
report.print();

const sometimes = report.assertionDetails.filter(
  (d) =>
    d.kind !== "always" && d.kind !== "alwaysOrUnreachable" && d.kind !== "unreachable" && d.kind !== "numericAlways",
);
const hit = sometimes.filter((d) => d.status === "PASS").length;
const flags = [`--stage ${stage}`, ...(bug !== undefined ? [`--bug ${bug}`] : [])].join(" ");
const bugRecipe = report.exploration?.bugRecipes[0];
const firstFailing = report.seedsFailing[0];
const replay =
  bugRecipe !== undefined && bugRecipe.recipe !== ""
    ? `--seed ${bugRecipe.seed} --recipe '${bugRecipe.recipe}' ${flags}`
    : firstFailing !== undefined
      ? // A replayed timeline replays with its recipe, not as its root seed.
        `--seed ${firstFailing}${values.recipe !== undefined ? ` --recipe '${values.recipe}'` : ""} ${flags}`
      : undefined;
const summary = [
  `seeds=${report.iterations}`,
  ...(report.exploration !== null ? [`timelines=${report.exploration.timelines}`] : []),
  `failed=${report.failedRuns}`,
  `violations=${report.assertionViolations.length}`,
  `sometimes=${hit}/${sometimes.length}`,
  `wall=${formatDuration(report.totalWallTimeMs)}`,
  ...(report.iterations === 1 && report.exploration === null ? [`hash=${report.seeds[0]!.traceHash}`] : []),
  // Last, unquoted: everything after "replay=" is the arguments that replay the first failure.
  ...(replay !== undefined ? [`replay=${replay}`] : []),
];
process.stdout.write(`${summary.join(" ")}\n`);
process.exitCode = report.passed ? 0 : 1;
