/**
 * The point of no return of a failure, as data: the failure probability measured at each cut
 * point (the randomness changed only after it), with a Wilson 95 % interval, and the two cut
 * points that bracket the moment the run became doomed. `explain.ts` measures the curve; the
 * CLI prints it and the timeline page draws it (`DoomCurve` is the shape both read).
 */

/** One cut point of the curve: `runs` re-runs with the draws after `atUs` changed, `failures` of them failing the same. */
export interface DoomCutPoint {
  /** Simulated time of the cut in µs: every draw made at or after it was changed. */
  readonly atUs: number;
  readonly runs: number;
  readonly failures: number;
  /** Wilson 95 % interval of the failure probability. */
  readonly low: number;
  readonly high: number;
}

/** The curve and its verdict, in the shape the timeline page draws. */
export interface DoomCurve {
  /** Ascending by `atUs`. */
  readonly cutPoints: readonly DoomCutPoint[];
  /** The last cut point where some re-run passed: the run could still be saved there. */
  readonly savedUntilUs: number;
  /** The first cut point from which every re-run failed (the failure's time when none did). */
  readonly doomedFromUs: number;
}

/** z for a two-sided 95 % interval. */
const Z_95 = 1.959963984540054;

/**
 * The Wilson score interval of `failures` in `runs`: unlike the normal approximation it stays
 * inside [0, 1] and is not zero-width at 0 or `runs` failures, which is where a cut point of a
 * doomed run lands.
 */
export function wilsonInterval(failures: number, runs: number): { readonly low: number; readonly high: number } {
  if (runs <= 0) return { low: 0, high: 1 };
  const p = failures / runs;
  const z2 = Z_95 * Z_95;
  const denominator = 1 + z2 / runs;
  const centre = (p + z2 / (2 * runs)) / denominator;
  const half = (Z_95 * Math.sqrt((p * (1 - p)) / runs + z2 / (4 * runs * runs))) / denominator;
  // Rounded so that the printed and JSON values do not depend on the last bit of a square root.
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  return { low: round(Math.max(0, centre - half)), high: round(Math.min(1, centre + half)) };
}

export function cutPoint(atUs: number, runs: number, failures: number): DoomCutPoint {
  return { atUs, runs, failures, ...wilsonInterval(failures, runs) };
}

/**
 * Index of the first cut point from which every later one failed in all its runs, or
 * `points.length` when the last one still had a passing run. Cut points without runs (every
 * run lost) neither save nor doom: they are skipped.
 */
export function doomedIndex(points: readonly DoomCutPoint[]): number {
  let index = points.length;
  for (let i = points.length - 1; i >= 0; i--) {
    const p = points[i]!;
    if (p.runs === 0) continue;
    if (p.failures < p.runs) break;
    index = i;
  }
  return index;
}

/**
 * The verdict of a curve: saved until the last cut point with a passing run before the doomed
 * ones, doomed from the first of those (from `failureUs` when even the last cut point was saved).
 */
export function doomCurve<P extends DoomCutPoint>(
  points: readonly P[],
  failureUs: number,
): DoomCurve & { readonly cutPoints: readonly P[] } {
  const sorted = [...points].sort((a, b) => a.atUs - b.atUs);
  const at = doomedIndex(sorted);
  let saved = at - 1;
  while (saved >= 0 && sorted[saved]!.runs === 0) saved--;
  const doomedFromUs = at < sorted.length ? sorted[at]!.atUs : failureUs;
  const savedUntilUs = saved >= 0 ? sorted[saved]!.atUs : 0;
  return { cutPoints: sorted, savedUntilUs, doomedFromUs };
}

/**
 * Whether the curve rises within its confidence: no cut point's interval lies wholly above a
 * later one's (changing less of the run never makes the failure clearly less likely).
 */
export function monotoneWithinConfidence(points: readonly DoomCutPoint[]): boolean {
  return conflictingPairs(points).length === 0;
}

/** The pairs `[i, j]`, `i < j`, of cut points whose intervals break monotonicity: `i`'s lies wholly above `j`'s. */
export function conflictingPairs(points: readonly DoomCutPoint[]): [number, number][] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      if (points[i]!.runs > 0 && points[j]!.runs > 0 && points[i]!.low > points[j]!.high) pairs.push([i, j]);
    }
  }
  return pairs;
}

/** A cut point together with when each of its failing runs failed. */
export interface TimedCutPoint extends DoomCutPoint {
  /** Simulated time of each failing run's failure in µs, ascending (`failures` of them). */
  readonly failureTimesUs: readonly number[];
}

/**
 * A pair of cut points that breaks monotonicity, and how much of it the original run's escape
 * accounts for. The probability of failing given the run so far is a martingale along the run,
 * not a monotone function of the cut: it falls where the original run passed a chance to fail
 * that the re-runs from the earlier cut point often took (docs/decisions.md D54).
 */
export interface DoomConflict {
  readonly earlierUs: number;
  readonly laterUs: number;
  /**
   * The earlier cut point's failures that happened before the later cut point: in a stretch the
   * original run went through without failing, so no run cut at the later point can repeat them.
   */
  readonly escaped: number;
  /** The earlier cut point's failures at or after the later cut point, and their Wilson interval. */
  readonly rest: DoomCutPoint;
  /** Without the escaped failures the earlier interval no longer lies wholly above the later one. */
  readonly explainedByEscape: boolean;
}

/** Every conflicting pair of the curve, in order, with what the escaped failures account for. */
export function doomConflicts(points: readonly TimedCutPoint[]): DoomConflict[] {
  return conflictingPairs(points).map(([i, j]) => {
    const earlier = points[i]!;
    const later = points[j]!;
    const escaped = earlier.failureTimesUs.filter((t) => t < later.atUs).length;
    const rest = cutPoint(earlier.atUs, earlier.runs, earlier.failures - escaped);
    return { earlierUs: earlier.atUs, laterUs: later.atUs, escaped, rest, explainedByEscape: rest.low <= later.high };
  });
}
