/**
 * The `untilCoverageStable(quietSeeds, maxSeeds)` stop rule, evaluated after each seed in seed
 * order against the campaign's assertion table. Shared by `Campaign.run` and the CLI's worker
 * pool (which absorbs seeds run elsewhere in seed order and asks the same question), so both stop
 * at exactly the same seed.
 */
import type { AssertionTable } from "../chaos/assertions/index.ts";
import type { SaturationReport } from "./report.ts";

export class CoverageStopRule {
  private previousSignal = -1;
  private quietSeeds = 0;
  /** The latest evaluation (null before the first seed). */
  saturation: SaturationReport | null = null;
  /** True when the last allowed seed ran without saturating. */
  convergenceTimeout = false;

  constructor(
    private readonly requiredQuietSeeds: number,
    private readonly maxSeeds: number,
  ) {}

  /**
   * Call after seed number `seedsRun` (1-based) has been recorded in `table`. Returns true when
   * the campaign should stop here: coverage saturated (a plateau of `requiredQuietSeeds` seeds
   * with no new sometimes/reachable assertion reached, and all of them reached).
   */
  afterSeed(table: AssertionTable, seedsRun: number): boolean {
    const signal = table.reachedSometimesCount();
    this.quietSeeds = signal === this.previousSignal ? this.quietSeeds + 1 : 0;
    this.previousSignal = signal;
    const saturated = this.quietSeeds >= this.requiredQuietSeeds && table.allSometimesReached();
    const { hit, total } = table.sometimesCoverage();
    this.saturation = {
      signal: "assertionCoverage",
      saturated,
      sometimesHit: hit,
      sometimesTotal: total,
      plateauSeeds: this.quietSeeds,
      requiredQuietSeeds: this.requiredQuietSeeds,
    };
    if (saturated) return true;
    if (seedsRun >= this.maxSeeds) this.convergenceTimeout = true;
    return false;
  }
}
