/**
 * `@moonpool/sim/vitest`: run a simulation as one test. The test fails with the failing seed's
 * summary, its stack pointing at the user's line that failed (Vitest shows that line), and the
 * option that pins the seed as a regression test. Works with any runner that reports thrown errors;
 * it imports nothing from Vitest.
 */
import { SimulationFailed, type SimulationReport } from "./runner/report.ts";
import { formatFailure } from "./runner/seed-result.ts";
import { groupFailures } from "./runner/failure-groups.ts";
import { SimulationBuilder } from "./runner/builder.ts";
import { isSimulationDefinition, type SimulationDefinition } from "./cli/define.ts";
import { InvalidConfiguration } from "@moonpool/core";

/** A builder, a `defineSimulation(...)`, or a function returning a builder (called once). */
export type SimulationUnderTest = SimulationBuilder | SimulationDefinition | (() => SimulationBuilder);

export interface SimulationTestOptions {
  /** Run exactly this seed (a regression test for a failure once found), instead of the builder's seeds. */
  readonly seed?: number;
  /** With `seed`: the exploration recipe of the failing timeline (from the report), e.g. "87@2280495 -> 28@53819". */
  readonly recipe?: string;
  /** Also fail on coverage gaps (a `sometimes` assertion never held) and on until-stable's cap. */
  readonly strictCoverage?: boolean;
}

function builderOf(simulation: SimulationUnderTest): SimulationBuilder {
  const built = isSimulationDefinition(simulation)
    ? simulation.build()
    : typeof simulation === "function"
      ? simulation()
      : simulation;
  if (!(built instanceof SimulationBuilder)) {
    throw new InvalidConfiguration(
      "runSimulationTest: pass a SimulationBuilder, a defineSimulation(...) or a function that returns a builder",
    );
  }
  return built;
}

/** This package's own frames (installed, or the sources of this repository), left out of the stack. */
const OWN_FRAME = /[\\/]@moonpool[\\/](?:sim|core)[\\/]|[\\/]packages[\\/](?:sim|core)[\\/]src[\\/]/;

/** The `at ...` frames of a failure's stack that are the user's. */
function userFrames(stack: string | undefined): string[] {
  return (stack ?? "").split("\n").filter((line) => /^\s+at /.test(line) && !OWN_FRAME.test(line));
}

/** The test options that pin a timeline, in the syntax the failure prints everywhere. */
function pinOptions(seed: number, recipe = ""): string {
  return recipe.length === 0 ? `{ seed: ${seed} }` : `{ seed: ${seed}, recipe: ${JSON.stringify(recipe)} }`;
}

/**
 * The report's replay lines in this helper's syntax, so the headline and the report name the same
 * seed the same way (the report's defaults are builder calls; the CLI prints commands).
 */
const TEST_HINTS = {
  replayHint: (seed: number, recipe?: string) => `pin it: runSimulationTest(simulation, ${pinOptions(seed, recipe)})`,
  rerunHint: (seeds: readonly number[]) =>
    `seeds ${seeds.join(", ")}, each pinned as runSimulationTest(simulation, { seed })`,
};

/** The error a failed report throws: summary first, the whole report after, the user's frames as its stack. */
export function simulationTestError(
  report: SimulationReport,
  options: { strictCoverage?: boolean } = {},
): SimulationFailed | null {
  const coverageGap = report.coverageViolations.length > 0 || report.convergenceTimeout;
  const coverageFailed = options.strictCoverage === true && coverageGap;
  if (report.passed && !coverageFailed) return null;
  // The seed the report recommends: the earliest failure of the first failure group.
  const earliest = groupFailures(report)[0]?.timelines[0];
  const failed = earliest === undefined ? undefined : report.seeds.find((s) => s.seed === earliest.seed);
  const lines: string[] = [];
  if (earliest !== undefined && failed !== undefined) {
    lines.push(`seed ${failed.seed} failed (${report.failedRuns} of ${report.iterations} seeds failed)`);
    for (const failure of failed.failures) lines.push(`  ${formatFailure(failure)}`);
    lines.push(
      `Pin it as a regression test: runSimulationTest(simulation, ${pinOptions(failed.seed, earliest.recipe)})`,
    );
  } else if (report.assertionViolations.length > 0) {
    lines.push(`safety assertions violated: ${report.assertionViolations.join("; ")}`);
  } else {
    const gaps = report.coverageViolations.join("; ");
    lines.push(`coverage: ${gaps.length > 0 ? gaps : "until-stable stopped at its cap"}`);
  }
  const error = new SimulationFailed(`${lines.join("\n")}\n\n${report.toString(TEST_HINTS)}`);
  const frames = userFrames(failed?.failures.find((f) => f.stack !== undefined)?.stack);
  if (frames.length > 0) error.stack = `${error.name}: ${lines[0]}\n${frames.join("\n")}`;
  return error;
}

/**
 * Runs the simulation and returns its report; throws `SimulationFailed` when a seed failed or a
 * safety assertion was violated (`strictCoverage`: also on coverage gaps). With `seed` (and
 * `recipe`) it runs only that timeline, so a failure once found stays a test:
 *
 *     test("election (seed 8237 split brain)", () => runSimulationTest(electionSim, { seed: 8237 }));
 */
export async function runSimulationTest(
  simulation: SimulationUnderTest,
  options: SimulationTestOptions = {},
): Promise<SimulationReport> {
  const builder = builderOf(simulation);
  if (options.recipe !== undefined && options.seed === undefined) {
    throw new InvalidConfiguration("runSimulationTest: a recipe needs its seed ({ seed, recipe })");
  }
  if (options.seed !== undefined) builder.replayTimeline(options.seed, options.recipe ?? "");
  const report = await builder.run();
  const error = simulationTestError(report, options);
  if (error !== null) throw error;
  return report;
}
