/**
 * Shared by the tests that compare what worker threads compute with this thread's outcome: reports
 * without wall-clock fields and failure stacks (a stack's text depends on the module loader that
 * compiled the code, Vitest's here and tsx's in the workers), and pools that start at once.
 */
import { afterAll, beforeAll } from "vitest";
import type { SimulationReport } from "../src/index.ts";
import { setPoolStartPolicy, type PoolStartPolicy } from "../src/runner/pool/deferred-pool.ts";

/** The gated fixture, as workers import it, and exploration settings both files explore it with. */
export const GATED = new URL("./fixtures/gated-explore.sim.ts", import.meta.url).href;
export const GATED_SETTINGS = {
  maxRunsPerSeed: 300,
  branchingFactor: 4,
  entriesPerRound: 1,
  maxFrontier: 64,
  maxRecipeLen: 8,
  stopOnFailure: false,
  entryEnergy: 0,
  reviveRetired: false,
};

const LOADER_OR_CLOCK_FIELDS = new Set(["wallTimeMs", "totalWallTimeMs", "stack"]);

/** `value` without the fields that depend on the wall clock or the module loader. */
export function withoutLoaderOrClock(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLoaderOrClock);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !LOADER_OR_CLOCK_FIELDS.has(k))
        .map(([k, v]) => [k, withoutLoaderOrClock(v)]),
    );
  }
  return value;
}

/** The report as JSON, without wall-clock fields and stacks. */
export const reportView = (report: SimulationReport): unknown =>
  withoutLoaderOrClock(JSON.parse(JSON.stringify(report.toJSON())));

/**
 * Pools of this test file start at once, whatever the machine's load (deferred-pool.ts starts them
 * only on a spare core): these tests are about what workers compute.
 */
export function startPoolsAtOnce(): void {
  let saved: PoolStartPolicy;
  beforeAll(() => {
    saved = setPoolStartPolicy({ minSpareCores: 0, sampleMs: 0, minWorkLeftMs: 0 });
  });
  afterAll(() => {
    setPoolStartPolicy(saved);
  });
}
