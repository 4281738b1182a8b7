import { describe, expect, it } from "vitest";
import { failureCounts, simulationStatus } from "../../src/cli/run-report.ts";
import type { SimulationReport } from "../../src/runner/report.ts";
import type { SeedFailureKind } from "../../src/runner/seed-result.ts";

/** A report holding only what the status needs: the seeds and their failure kinds. */
function reportOf(kinds: readonly (SeedFailureKind | null)[]): SimulationReport {
  const seeds = kinds.map((kind, i) => ({
    seed: i + 1,
    ok: kind === null,
    failures: kind === null ? [] : [{ kind, message: kind, timeMs: 0 }],
  }));
  return {
    seeds,
    passed: kinds.every((k) => k === null),
    coverageViolations: [],
    convergenceTimeout: false,
  } as unknown as SimulationReport;
}

describe("the status of a simulation that declares expectFailure", () => {
  it("passes when a seed failed on its own property and no seed was lost", () => {
    expect(simulationStatus(reportOf([null, "assertion", null]), false, true)).toBe("passed");
    expect(failureCounts(reportOf([null, "assertion", "invariant"]).seeds)).toEqual({ lost: 0, own: 2 });
  });

  it("fails when no seed failed, or when a seed hung or crashed its worker (a hang is not the planted bug)", () => {
    expect(simulationStatus(reportOf([null, null]), false, true)).toBe("failed");
    expect(simulationStatus(reportOf([null, "timeout"]), false, true)).toBe("failed");
    expect(simulationStatus(reportOf(["assertion", "workerCrash"]), false, true)).toBe("failed");
    expect(failureCounts(reportOf(["assertion", "workerCrash", "timeout"]).seeds)).toEqual({ lost: 2, own: 1 });
  });

  it("a simulation without expectFailure fails on any failing seed, lost ones included", () => {
    expect(simulationStatus(reportOf([null, null]), false, false)).toBe("passed");
    expect(simulationStatus(reportOf([null, "timeout"]), false, false)).toBe("failed");
    expect(simulationStatus(reportOf(["assertion"]), false, false)).toBe("failed");
  });
});
