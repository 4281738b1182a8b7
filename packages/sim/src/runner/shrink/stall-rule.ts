/**
 * The shrinker's stall rule: the hunt for other draw sequences, the one open-ended part of the
 * search, ends once it has gone `stallRuns(h)` runs without a smaller failure.
 */

/** The hunt gives up after at least this many runs without a smaller failure... */
export const SHRINK_STALL_MIN_RUNS = 300;

/**
 * ...and at least as many as the search had spent when the hunt began (`huntStartRun`): a
 * search that took long on the seed's own draws gets as long again to find a rarer failure on
 * others, one that was over early does not hunt for the whole budget. The greedy phases before
 * the hunt need no such rule: they end on their own, and productive stretches there can be
 * hundreds of runs long.
 */
export function stallRuns(huntStartRun: number): number {
  return Math.max(SHRINK_STALL_MIN_RUNS, huntStartRun);
}
