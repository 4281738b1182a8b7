/**
 * Runs the leader-election simulation and exits non-zero if it found a bug.
 *
 *   node --import tsx examples/leader-election/run.ts                 # until coverage is stable
 *   node --import tsx examples/leader-election/run.ts --bug vote-twice
 *   node --import tsx examples/leader-election/run.ts --seeds 500      # exactly 500 seeds
 *   node --import tsx examples/leader-election/run.ts --seed 1234 [--bug vote-twice]   # replay one seed
 *
 * The full report goes to stderr; stdout gets one summary line for scripts and CI.
 */
import { parseArgs } from "node:util";
import { formatDuration } from "@moonpool/sim";
import { leaderElectionSimulation } from "./simulation.ts";

const USAGE = "usage: run.ts [--seeds N] [--seed SEED] [--bug vote-twice]";

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function positiveInteger(text: string | undefined, what: string, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) fail(`${what} must be an integer >= ${min}, got '${text}'`);
  return n;
}

let values: { seeds?: string; seed?: string; bug?: string };
try {
  ({ values } = parseArgs({
    options: { seeds: { type: "string" }, seed: { type: "string" }, bug: { type: "string" } },
  }));
} catch (error) {
  fail((error as Error).message);
}
if (values.bug !== undefined && values.bug !== "vote-twice")
  fail(`unknown --bug '${values.bug}' (the planted bug is 'vote-twice')`);
const bug = values.bug === "vote-twice" ? "vote-twice" : undefined;
const seeds = positiveInteger(values.seeds, "--seeds", 1);
const replaySeed = positiveInteger(values.seed, "--seed", 0);

const builder = leaderElectionSimulation({ bug });
if (replaySeed !== undefined) builder.setDebugSeeds([replaySeed]).setIterations(1);
else if (seeds !== undefined) builder.setIterations(seeds);
else builder.untilCoverageStable(10, 200);

const report = await builder.run();
report.print();

const hit = report.assertionDetails.filter(
  (d) => (d.kind === "sometimes" || d.kind === "numericSometimes") && d.status === "PASS",
).length;
const total = report.assertionDetails.filter((d) => d.kind === "sometimes" || d.kind === "numericSometimes").length;
const firstFailing = report.seedsFailing[0];
const summary = [
  `seeds=${report.iterations}`,
  `failed=${report.failedRuns}`,
  `violations=${report.assertionViolations.length}`,
  `sometimes=${hit}/${total}`,
  `wall=${formatDuration(report.totalWallTimeMs)}`,
  // A replayed seed must reproduce the original's trace hash (the Seeds list of the report).
  ...(report.iterations === 1 ? [`hash=${report.seeds[0]!.traceHash}`] : []),
  ...(firstFailing !== undefined ? [`replay="--seed ${firstFailing}${bug !== undefined ? ` --bug ${bug}` : ""}"`] : []),
];
process.stdout.write(`${summary.join(" ")}\n`);
process.exitCode = report.passed ? 0 : 1;
