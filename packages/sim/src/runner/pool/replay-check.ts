/**
 * The replay contract, checked before a failure is reported: its timeline (seed and recipe) runs
 * again in a fresh realm, the way `moonpool replay` runs it, and must hash as it did in the
 * campaign. A timeline that hashes differently alone depended on something outside its seed
 * (state left by earlier seeds in the realm, the machine): its failures are marked
 * `notReplaying` with where the runs part, and are reported without a replay command.
 */
import { drawSite, firstDrawDifference, type DrawSiteAt, type DrawTrail } from "../draw-trail.ts";
import { LOST_SEED_KINDS, type SeedFailure, type SeedResult } from "../seed-result.ts";
import type { BuildOverrides, SimulationSource } from "../simulation-source.ts";
import type { PoolTaskResults, ReplayCheckResult, TaskOutcome } from "./messages.ts";
import type { WorkerPool } from "./worker-pool.ts";

export interface ReplayCheckTarget {
  readonly source: SimulationSource;
  readonly overrides: BuildOverrides;
  /** Tasks of the campaign (cancelled together when it stops). */
  readonly batch: object;
}

/**
 * Failing seeds of one campaign re-run alone at most: each costs a fresh realm (about a second of
 * CPU, docs/decisions.md D21), and a planted bug fails hundreds. Counted in seed order, so which
 * seeds are checked does not depend on the number of workers.
 */
export const MAX_REPLAY_CHECKED_SEEDS = 8;

/** What a campaign's replay check did. */
export interface ReplayCheckCounts {
  /** Failing seeds whose timelines were re-run alone (or ran alone already: isolation "seed"). */
  readonly seedsChecked: number;
  /** Failing timelines that hashed differently alone. */
  readonly notReplaying: number;
  /** Failing seeds past `MAX_REPLAY_CHECKED_SEEDS`: their replay commands were not checked. */
  readonly seedsUnchecked: number;
}

type SeedOutcome = TaskOutcome<PoolTaskResults["rootSeed"]>;

/** The replay check of one campaign: `check` every outcome in seed order. */
export class ReplayChecker {
  private seedsChecked = 0;
  private notReplaying = 0;
  private seedsUnchecked = 0;

  constructor(
    private readonly pool: WorkerPool,
    private readonly target: ReplayCheckTarget,
    /** Isolation "seed": a root timeline ran first in a fresh realm, as the check would run it. */
    private readonly rootRanAlone: boolean,
    private readonly maxSeeds = MAX_REPLAY_CHECKED_SEEDS,
  ) {}

  async check(outcome: SeedOutcome): Promise<SeedOutcome> {
    if (outcome.kind !== "done" || outcome.outcome.result.ok) return outcome;
    const { draws, ...rest } = outcome.outcome;
    const result = rest.result;
    const needsRun = result.failures.some(
      (f) => !LOST_SEED_KINDS.has(f.kind) && !(this.rootRanAlone && (f.recipe ?? "") === ""),
    );
    if (!needsRun) {
      this.seedsChecked++;
      return { kind: "done", outcome: rest };
    }
    if (this.seedsChecked >= this.maxSeeds) {
      this.seedsUnchecked++;
      return { kind: "done", outcome: rest };
    }
    this.seedsChecked++;
    const checked = await checkReplays(this.pool, this.target, result, draws, this.rootRanAlone);
    this.notReplaying += new Set(
      checked.failures.filter((f) => f.notReplaying !== undefined).map((f) => f.recipe ?? ""),
    ).size;
    return { kind: "done", outcome: { ...rest, result: checked } };
  }

  counts(): ReplayCheckCounts {
    return { seedsChecked: this.seedsChecked, notReplaying: this.notReplaying, seedsUnchecked: this.seedsUnchecked };
  }
}

/** The hash the campaign recorded for the timeline of `recipe`, or null when it recorded none. */
function recordedHash(result: SeedResult, failure: SeedFailure, recipe: string): string | null {
  if (failure.traceHash !== undefined) return failure.traceHash;
  return recipe === (result.recipe ?? "") ? result.traceHash : null;
}

function describeSite(label: string, site: DrawSiteAt | null): string {
  return site === null
    ? `${label}: no draw (the run made fewer draws)`
    : `${label}: draw by ${site.actor} at ${site.timeMs.toFixed(3)} ms, step ${site.step}`;
}

function runAlone(
  pool: WorkerPool,
  target: ReplayCheckTarget,
  seed: number,
  recipe: string,
  stackAtDraw: number | null,
): Promise<TaskOutcome<ReplayCheckResult>> {
  return pool.run(
    { kind: "replayCheck", source: target.source, overrides: target.overrides, seed, recipe, stackAtDraw },
    { isolated: true, batch: target.batch },
  );
}

/** Why the timeline does not replay: the hashes, and the first diverging draw when both trails are known. */
async function explain(
  pool: WorkerPool,
  target: ReplayCheckTarget,
  seed: number,
  recipe: string,
  campaignHash: string,
  alone: ReplayCheckResult,
  campaignDraws: DrawTrail | undefined,
): Promise<string> {
  const timeline = recipe.length > 0 ? `seed ${seed} recipe "${recipe}"` : `seed ${seed}`;
  const lines = [
    `does not replay on its own: run alone in a fresh realm (as \`moonpool replay\` runs it), ${timeline} ` +
      `${alone.ok ? "passes" : "fails"} with trace hash ${alone.traceHash}, not ${campaignHash} as in the campaign`,
  ];
  if (campaignDraws !== undefined) {
    const index = firstDrawDifference(campaignDraws, alone.draws);
    if (index !== null) {
      const again = await runAlone(pool, target, seed, recipe, index);
      const stack = again.kind === "done" ? again.outcome.stack : undefined;
      lines.push(
        `  the runs part at sim draw #${index} (${campaignDraws.actorIds.length} draws in the campaign, ${alone.draws.actorIds.length} alone)`,
        `  ${describeSite("in the campaign", drawSite(campaignDraws, index))}`,
        `  ${describeSite("alone", drawSite(alone.draws, index))}`,
      );
      if (stack !== undefined) lines.push("  the draw alone was made at:", ...stack.split("\n").map((l) => `    ${l}`));
    } else lines.push("  the same draws, different traces");
  }
  lines.push(
    "  Something outside the seed changed it: module-level state left by earlier seeds in the same realm " +
      "(a library's pool or cache, a module variable), or input from the machine. Seeds get a realm of their own " +
      "with isolation 'seed' (--isolation seed)",
  );
  return lines.join("\n");
}

/**
 * Checks every failing timeline of `result` (lost seeds excepted: nothing of their run came
 * back to compare) and returns the result with the failures of those that do not replay marked.
 * `rootRanAlone`: the root timeline was the first to run in a fresh realm (isolation "seed"),
 * which is what the check would do again, so only explored timelines (recipes) are checked.
 */
export async function checkReplays(
  pool: WorkerPool,
  target: ReplayCheckTarget,
  result: SeedResult,
  campaignDraws: DrawTrail | undefined,
  rootRanAlone: boolean,
): Promise<SeedResult> {
  if (result.ok) return result;
  const notes = new Map<string, string>();
  const checked = new Set<string>();
  for (const failure of result.failures) {
    if (LOST_SEED_KINDS.has(failure.kind)) continue;
    const recipe = failure.recipe ?? "";
    if (checked.has(recipe) || (rootRanAlone && recipe === "")) continue;
    checked.add(recipe);
    const expected = recordedHash(result, failure, recipe);
    if (expected === null) continue;
    const outcome = await runAlone(pool, target, result.seed, recipe, null);
    if (outcome.kind === "cancelled") continue;
    let note: string | null = null;
    if (outcome.kind !== "done") {
      const cause =
        outcome.kind === "error"
          ? `${outcome.name}: ${outcome.message}`
          : outcome.kind === "crashed"
            ? outcome.cause
            : "it ran past its wall-clock limit";
      note = `does not replay on its own: run alone in a fresh realm, the timeline did not complete (${cause})`;
    } else if (outcome.outcome.traceHash !== expected) {
      const draws = recipe === "" ? campaignDraws : undefined;
      note = await explain(pool, target, result.seed, recipe, expected, outcome.outcome, draws);
    }
    if (note !== null) notes.set(recipe, note);
  }
  if (notes.size === 0) return result;
  return {
    ...result,
    failures: result.failures.map((f) => {
      const note = notes.get(f.recipe ?? "");
      return note === undefined ? f : { ...f, notReplaying: note };
    }),
  };
}
