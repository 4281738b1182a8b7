/**
 * How soon the until-stable stop rule with the minimum `moonpool run` spent before the adaptive
 * budget (D27) finds two textbook bugs, over 10 base seeds (`npm run bench -- campaign` measures the
 * adaptive default):
 *
 * - lease: a lease holder that times its lease on its own clock with no margin, under
 *   `Chaos.clock("random")` (test/fixtures/lease.ts);
 * - fsync: a log that acknowledges before `sync()`, under `Chaos.storage("swarm")` with crash
 *   attrition (test/fixtures/fsync-log.ts).
 *
 * For each base seed the seeds run in the command's order (`deriveSeed(base, i)`), absorbed into
 * one assertion table and judged by the default rule (`until-stable 10,1000` with its minimum of
 * `DEFAULT_RUN_MIN_SEEDS`); the figure is the 1-based position of the first failing seed, or null
 * when the rule stopped first. No wall-clock figure: the result is a pure function of the seeds.
 */
import { deriveSeed } from "../packages/sim/src/engine/rng.ts";
import { AssertionTable } from "../packages/sim/src/chaos/assertions/index.ts";
import { Campaign } from "../packages/sim/src/runner/campaign.ts";
import { CoverageStopRule, DEFAULT_RUN_MIN_SEEDS } from "../packages/sim/src/runner/coverage-stop-rule.ts";
import { DEFAULT_STOP_RULE } from "../packages/sim/src/runner/config.ts";
import type { SimulationBuilder } from "../packages/sim/src/index.ts";
import { leaseSimulation } from "../packages/sim/test/fixtures/lease.ts";
import { logSimulation } from "../packages/sim/test/fixtures/fsync-log.ts";

const BASE_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/** The 1-based position of the first failing seed under the default rule, or null if it stopped first. */
async function seedsToFirstFailure(build: () => SimulationBuilder, baseSeed: number): Promise<number | null> {
  const control = DEFAULT_STOP_RULE;
  const rule = new CoverageStopRule(control.quietSeeds, control.maxSeeds, DEFAULT_RUN_MIN_SEEDS);
  const table = new AssertionTable();
  for (let i = 0; i < control.maxSeeds; i++) {
    const { result, table: child } = await new Campaign(build().build()).runSingleSeed(deriveSeed(baseSeed, i));
    table.absorb(child, null);
    if (!result.ok) return i + 1;
    if (rule.afterSeed(table, i + 1)) return null;
  }
  return null;
}

function summary(found: (number | null)[]): Record<string, unknown> {
  const hits = found.filter((n): n is number => n !== null).sort((a, b) => a - b);
  return {
    seedsToFirstFailure: found,
    found: `${hits.length}/${found.length}`,
    median: hits.length === 0 ? null : hits[Math.floor((hits.length - 1) / 2)],
    max: hits.length === found.length ? hits[hits.length - 1] : null,
  };
}

function describeDefaultRule(): string {
  const control = DEFAULT_STOP_RULE;
  return `until-stable ${control.quietSeeds},${control.maxSeeds},${DEFAULT_RUN_MIN_SEEDS}`;
}

export async function benchFaults(): Promise<Record<string, unknown>> {
  const lease: (number | null)[] = [];
  const fsync: (number | null)[] = [];
  for (const base of BASE_SEEDS) lease.push(await seedsToFirstFailure(() => leaseSimulation("noMargin"), base));
  for (const base of BASE_SEEDS)
    fsync.push(await seedsToFirstFailure(() => logSimulation("ackBeforeSync").traceLevel("warn"), base));
  return {
    rule: describeDefaultRule(),
    baseSeeds: BASE_SEEDS.length,
    lease: summary(lease),
    fsync: summary(fsync),
  };
}
