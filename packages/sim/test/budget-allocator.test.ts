/**
 * The adaptive campaign's split (explore/budget-allocator.ts) and its frontier's own settings
 * (explore/frontier.ts, adaptive): probes at doubling intervals while continuations yield nothing,
 * a share from their yield once they do, never the whole batch; recipe limits that grow with a
 * chain instead of dropping it, energy by depth, entries kept apart per root seed.
 */
import { describe, expect, it } from "vitest";
import {
  BudgetAllocator,
  CAMPAIGN_BATCH_TIMELINES,
  MAX_PROBE_INTERVAL_BATCHES,
} from "../src/explore/budget-allocator.ts";
import { ADAPTIVE_ENERGY_PER_DEPTH, ADAPTIVE_MAX_ENERGY, Frontier } from "../src/explore/frontier.ts";
import type { Discovery } from "../src/chaos/assertions/index.ts";
import type { Recipe } from "../src/engine/recipe.ts";

/** Runs `batches` batches in which fresh seeds find `freshFinds` discoveries each and continuations `continuationFinds`. */
function simulate(batches: number, freshFinds: number, continuationFinds: number): number[] {
  const allocator = new BudgetAllocator();
  const slots: number[] = [];
  let timeline = 0;
  for (let b = 0; b < batches; b++) {
    const c = allocator.continuationSlots(CAMPAIGN_BATCH_TIMELINES, b > 0);
    slots.push(c);
    for (let i = 0; i < CAMPAIGN_BATCH_TIMELINES - c; i++) allocator.record("fresh", freshFinds, false, ++timeline);
    for (let i = 0; i < c; i++) allocator.record("continuation", continuationFinds, false, ++timeline);
    allocator.afterBatch(c * continuationFinds);
  }
  return slots;
}

describe("BudgetAllocator", () => {
  it("probes one continuation at doubling intervals while continuations find nothing", () => {
    const slots = simulate(40, 1, 0);
    const probes = slots.flatMap((c, b) => (c > 0 ? [b] : []));
    expect(slots.every((c) => c <= 1)).toBe(true);
    expect(probes.slice(0, 5)).toEqual([1, 3, 7, 7 + MAX_PROBE_INTERVAL_BATCHES, 7 + 2 * MAX_PROBE_INTERVAL_BATCHES]);
    // Then one probe every MAX_PROBE_INTERVAL_BATCHES batches: at most one timeline in 32.
    expect(probes.length).toBe(3 + Math.floor((39 - 7) / MAX_PROBE_INTERVAL_BATCHES));
  });

  it("gives continuations most of the batch once they out-yield fresh seeds, never all of it", () => {
    const slots = simulate(20, 0, 1);
    expect(slots[0]).toBe(0);
    expect(slots[1]).toBe(1);
    expect(slots.slice(2)).toEqual(Array(18).fill(CAMPAIGN_BATCH_TIMELINES - 1));
  });

  it("gives no continuation when nothing can be continued, and counts each arm's yield", () => {
    const allocator = new BudgetAllocator();
    expect(allocator.continuationSlots(CAMPAIGN_BATCH_TIMELINES, false)).toBe(0);
    allocator.record("fresh", 2, false, 1);
    allocator.record("fresh", 0, true, 2);
    allocator.record("continuation", 1, true, 3);
    expect(allocator.yields()).toEqual({
      fresh: { timelines: 2, discoveries: 2, failures: 1, firstFailureAtTimeline: 2 },
      continuation: { timelines: 1, discoveries: 1, failures: 1, firstFailureAtTimeline: 3 },
    });
  });
});

function discovery(segment: number, drawCount: number, kind: Discovery["kind"] = "newBucket"): Discovery {
  return { kind, message: "m", key: `k${segment}:${drawCount}`, segment, drawCount, seed: 1 };
}

/** A recipe of `length` reseed points. */
function recipeOf(length: number): Recipe {
  return Array.from({ length }, (_, i) => ({ count: 1, seed: i + 1, streams: "sim+schedule" }));
}

describe("the adaptive frontier", () => {
  it("doubles its recipe limit for a discovery too deep, where a fixed frontier drops it", () => {
    const fixed = new Frontier(16, 4, () => 0);
    const adaptive = new Frontier(16, 4, () => 0, 0, true, true);
    expect(fixed.addDiscoveries(recipeOf(4), [discovery(4, 3)], 1)).toBe(0);
    expect(fixed.tooDeep).toBe(1);
    expect(adaptive.addDiscoveries(recipeOf(4), [discovery(4, 3)], 1)).toBe(1);
    expect(adaptive.maxRecipeLen).toBe(8);
    expect(adaptive.recipeLimitRaises).toBe(1);
  });

  it("gives energy by the depth of the chain, the most for progress found by a continuation", () => {
    const frontier = new Frontier(16, 32, () => 0, 0, true, true);
    frontier.addDiscoveries([], [discovery(0, 5)], 1);
    frontier.addDiscoveries(recipeOf(2), [discovery(2, 5)], 1);
    frontier.addDiscoveries(recipeOf(1), [discovery(1, 5, "betterQuality")], 1);
    const energies = [frontier.select()!, frontier.select(new Set([frontier.select()!]))!].map((e) => e.energy);
    // Newest first: the progress entry, then the depth-2 one.
    expect(energies).toEqual([ADAPTIVE_MAX_ENERGY, 3 * ADAPTIVE_ENERGY_PER_DEPTH]);
  });

  it("keeps the same coordinate of two root seeds apart, and drops a root's entries", () => {
    const frontier = new Frontier(16, 32, () => 0, 0, true, true);
    expect(frontier.addDiscoveries([], [discovery(0, 5)], 1)).toBe(1);
    expect(frontier.addDiscoveries([], [discovery(0, 5)], 2)).toBe(1);
    expect(frontier.addDiscoveries([], [discovery(0, 5)], 2)).toBe(0);
    frontier.dropRoot(1);
    expect(frontier.size).toBe(1);
    expect(frontier.select()!.rootSeed).toBe(2);
  });
});
