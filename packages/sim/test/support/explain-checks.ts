/** What every explain result must show, and the failing seeds the explain tests use (tier 1 and 2). */
import { expect } from "vitest";
import type { ExplainResult, WindowEvent } from "../../src/index.ts";
import { conflictingPairs, monotoneWithinConfidence } from "../../src/runner/doom.ts";

/** Seed index 0 of base seed 1 (the leader-election example's test): a split brain in term 1 at 257 ms. */
export const VOTE_TWICE_SEED = 469527774716190;
/** A root seed whose own timeline fails agreement (of seeds 1-80: 22, 63 and 73 under the baseline clocks). */
export const ADOPT_FIRST_SEED = 63;

/**
 * Checks every explain result must pass, whatever the simulation. A curve that is not monotone
 * within its confidence must say so: every conflicting pair of cut points is in `conflicts`.
 */
export function expectWellFormed(result: ExplainResult, cuts: number): void {
  const points = result.curve.cutPoints;
  expect(points.length).toBeGreaterThanOrEqual(cuts);
  expect(points.map((p) => p.atUs)).toEqual([...points.map((p) => p.atUs)].sort((a, b) => a - b));
  expect(points[0]!.atUs).toBe(0);
  expect(points[points.length - 1]!.atUs).toBeLessThanOrEqual(result.failureUs);
  for (const p of points) {
    expect(p.low).toBeLessThanOrEqual(p.failures / p.runs);
    expect(p.high).toBeGreaterThanOrEqual(p.failures / p.runs);
    // A run replays the original up to its cut, and the original did not fail before its end.
    expect(p.failureTimesUs.length).toBe(p.failures);
    for (const t of p.failureTimesUs) expect(t).toBeGreaterThanOrEqual(p.atUs);
  }
  expect(result.conflicts.length === 0).toBe(monotoneWithinConfidence(points));
  expect(result.conflicts.map((c) => [c.earlierUs, c.laterUs])).toEqual(
    conflictingPairs(points).map(([i, j]) => [points[i]!.atUs, points[j]!.atUs]),
  );
  if (!result.doomedFromStart) expect(result.curve.savedUntilUs).toBeLessThan(result.curve.doomedFromUs);
  // Every run changed only at the failure's instant or later still fails: the jump was found.
  const last = points[points.length - 1]!;
  expect(last.failures).toBe(last.runs);
}

/**
 * The accept, inside the doomed window, of the value a Paxos agreement failure chose second in
 * its slot (the failure's message names both): the adopt-first-reported-value bug at work.
 */
export function adoptedAccept(result: ExplainResult): WindowEvent | undefined {
  const details = /slot=(\d+), first=([^,}]+),.* second=([^,}]+),/.exec(result.message);
  expect(details, result.message).not.toBeNull();
  const [, slot, , second] = details!;
  const accept = result.window.find(
    (e) => e.name === "accepted" && e.fields.slot === Number(slot) && e.fields.value === second,
  );
  expect(accept, JSON.stringify(result.window)).toBeDefined();
  return accept;
}
