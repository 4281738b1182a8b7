/**
 * Tier 2 (docs/contributing.md, "Test tiers"): the storage durability contract
 * (fixtures/durability-contract.ts) over 1,000 seeds. storage-durability.test.ts checks it over 250.
 */
import { describe, expect, it } from "vitest";
import { durabilityOverSeeds } from "./fixtures/durability-contract.ts";

describe("storage durability contract, at campaign size", () => {
  it("holds over 1,000 seeds of a write-sync-crash-read workload with swarm storage faults (raised)", async () => {
    const totals = await durabilityOverSeeds(1_000);
    // The contract was exercised, not vacuously true: crashes lost and tore unsynced writes,
    // faults struck, and data did come back older than the latest write.
    expect(totals.lost).toBeGreaterThan(500);
    expect(totals.torn).toBeGreaterThan(500);
    expect(totals.faultEvents).toBeGreaterThan(5_000);
    expect(totals.seedsWithDataNotLatest).toBeGreaterThan(500);
  });
});
