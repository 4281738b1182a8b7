/**
 * Root seeds of an exploring campaign are explored in rounds of `EXPLORE_ROUND_ROOT_SEEDS`
 * consecutive seed indexes, on every path (`moonpool run --explore`, the builder's `run()` with
 * or without `enableExploration({ workers })`): every root of a round starts from a snapshot of
 * the campaign's table taken at the start of its round (so it sees the coverage of all earlier
 * rounds, not of its round-mates), and the round's tables are absorbed in seed order
 * (`AssertionTable.absorb(child, base)`). Roots of a round are therefore independent of each
 * other, so any thread may explore any of them, in any order, with the same outcome. The round
 * size is a constant, not a worker count: every number of workers explores identically.
 */
import type { AssertionTableState } from "../chaos/assertions/index.ts";
import type { IndexRange } from "./seed-plan.ts";

/** Root seeds per exploration round (see above). Eight keeps up to eight workers busy per round. */
export const EXPLORE_ROUND_ROOT_SEEDS = 8;

export interface RoundsOptions<O> {
  readonly range: IndexRange;
  /** The campaign's table as plain data: every root of the next round starts from it. */
  readonly snapshot: () => AssertionTableState;
  /**
   * Starts every root of a round (seed indexes in order) from `base`; returns one promise per
   * index, in the same order. The roots may run in any thread and finish in any order.
   */
  readonly startRound: (indexes: readonly number[], base: AssertionTableState) => Promise<O>[];
  /** Waits for one root's outcome (the CLI's SIGINT handling hooks in here). */
  readonly settle?: (pending: Promise<O>) => Promise<O>;
  /**
   * Records root `index` in seed order (absorbing its table against `base`); false ends the
   * campaign here (a stop rule), leaving the rest of the round unabsorbed.
   */
  readonly absorb: (index: number, outcome: O, base: AssertionTableState) => boolean;
}

/** Explores the roots of `range` in rounds (see above); resolves once they are absorbed or a stop. */
export async function exploreInRounds<O>(options: RoundsOptions<O>): Promise<void> {
  const { range, settle = (pending) => pending } = options;
  for (let roundStart = range.start; roundStart < range.end; roundStart += EXPLORE_ROUND_ROOT_SEEDS) {
    const roundEnd = Math.min(roundStart + EXPLORE_ROUND_ROOT_SEEDS, range.end);
    const base = options.snapshot();
    const indexes: number[] = [];
    for (let index = roundStart; index < roundEnd; index++) indexes.push(index);
    const pending = options.startRound(indexes, base);
    for (let i = 0; i < indexes.length; i++) {
      if (!options.absorb(indexes[i]!, await settle(pending[i]!), base)) return;
    }
  }
}
