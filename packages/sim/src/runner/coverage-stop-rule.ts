/**
 * The `untilCoverageStable(quietSeeds, maxSeeds, { minSeeds })` stop rule, evaluated after each
 * seed in seed order against the campaign's assertion table. Shared by `Campaign.run` and the
 * CLI's worker pool (which absorbs seeds run elsewhere in seed order and asks the same question),
 * so both stop at exactly the same seed.
 *
 * Coverage is the number of sometimes-style sites reached (boolean sometimes/reachable, numeric
 * sometimes, completed sometimesAll) plus the number of `assertSometimesEach` buckets seen. It is
 * stable once `quietSeeds` seeds in a row added none, every sometimes-style site seen has been
 * reached (vacuous when there are none, e.g. a simulation whose only signals are
 * `assertSometimesEach`), and at least `minSeeds` seeds ran. A simulation with no signal at all
 * runs to the cap. Numeric watermarks are not coverage:
 * a distance that improves a little every seed would never let a campaign stop.
 *
 * Under `moonpool run --coverage` the covered code of the system under test is a second signal:
 * a seed that reaches new code is progress too, and code coverage alone is enough to be stable.
 */
import type { AssertionTable } from "../chaos/assertions/index.ts";
import type { PlateauSignal, SaturationReport } from "./report.ts";
import type { SeedPlan } from "./seed-plan.ts";

/**
 * The minimum `moonpool run` spent before coverage could stop it, until the adaptive budget became
 * the default (docs/decisions.md D27); bench/faults.ts still measures that rule.
 */
export const DEFAULT_RUN_MIN_SEEDS = 500;

/** What the rule still waits for after the latest seed: the progress display shows it. */
export interface StopRuleWait {
  /** Seeds in a row that added no coverage, and how many the rule needs. */
  readonly quietSeeds: number;
  readonly requiredQuietSeeds: number;
  readonly minSeeds: number;
  readonly maxSeeds: number;
  /** Sometimes-style sites seen but not reached yet (the rule waits for all of them). */
  readonly unreached: number;
  /** No coverage signal at all: only the cap ends the campaign. */
  readonly noSignal: boolean;
}

export class CoverageStopRule {
  private previousSignal = -1;
  private quietSeeds = 0;
  private assertionQuietSeeds = 0;
  private previousCode = -1;
  private codeQuietSeeds = 0;
  /** The latest evaluation (null before the first seed). */
  saturation: SaturationReport | null = null;
  /** True when the last allowed seed ran without saturating. */
  convergenceTimeout = false;
  private unreached = 0;
  private noSignal = false;

  /** The rule of a plan that runs until coverage is stable; null for a fixed plan. */
  static forPlan(plan: SeedPlan): CoverageStopRule | null {
    return plan.kind === "untilStable"
      ? new CoverageStopRule(plan.quietSeeds, plan.maxSeeds, plan.minSeeds ?? 0)
      : null;
  }

  constructor(
    private readonly requiredQuietSeeds: number,
    private readonly maxSeeds: number,
    private readonly minSeeds: number = 0,
  ) {}

  /**
   * Call after seed number `seedsRun` (1-based) has been recorded in `table`. Returns true when
   * the campaign should stop here (see the module comment).
   */
  afterSeed(table: AssertionTable, seedsRun: number, codeCoveredChars: number | null = null): boolean {
    const { hit, total } = sometimesSites(table);
    const buckets = table.bucketCount;
    const signal = hit + buckets;
    const assertionQuiet = signal === this.previousSignal ? this.assertionQuietSeeds + 1 : 0;
    this.assertionQuietSeeds = assertionQuiet;
    this.previousSignal = signal;
    this.quietSeeds = assertionQuiet;
    if (codeCoveredChars !== null) {
      this.codeQuietSeeds = codeCoveredChars === this.previousCode ? this.codeQuietSeeds + 1 : 0;
      this.previousCode = codeCoveredChars;
      this.quietSeeds = Math.min(assertionQuiet, this.codeQuietSeeds);
    }
    // Without any signal (no sometimes-style site, no bucket, no code coverage) there is nothing to be stable.
    const anySignal = total + buckets > 0 || codeCoveredChars !== null;
    this.unreached = total - hit;
    this.noSignal = !anySignal;
    const stable = this.quietSeeds >= this.requiredQuietSeeds && hit === total && anySignal;
    const saturated = stable && seedsRun >= this.minSeeds;
    if (!saturated && seedsRun >= this.maxSeeds) this.convergenceTimeout = true;
    const stopReason = saturated
      ? `stopped after ${seedsRun} seeds: ${codeCoveredChars === null ? "" : "code and assertion "}coverage stable for ${this.quietSeeds} seeds (${hit}/${total} sometimes reached, ${buckets} sometimesEach buckets${codeCoveredChars === null ? "" : `, ${codeCoveredChars} characters of code covered`})${this.minSeeds > 0 ? ` and the minimum of ${this.minSeeds} seeds spent` : ""}`
      : this.convergenceTimeout
        ? `stopped at the cap of ${this.maxSeeds} seeds: ${
            codeCoveredChars !== null && hit === total
              ? `code coverage still growing (new code reached within the last ${this.requiredQuietSeeds} seeds)`
              : capReason(hit, total, buckets, this.requiredQuietSeeds)
          }`
        : `running: ${hit}/${total} sometimes reached, ${buckets} buckets, stable for ${this.quietSeeds} of ${this.requiredQuietSeeds} seeds${seedsRun < this.minSeeds ? `, ${this.minSeeds - seedsRun} seeds left of the minimum` : ""}`;
    this.saturation = {
      signal: "assertionCoverage",
      saturated,
      sometimesHit: hit,
      sometimesTotal: total,
      plateauSeeds: this.quietSeeds,
      requiredQuietSeeds: this.requiredQuietSeeds,
      eachBuckets: buckets,
      minSeeds: this.minSeeds,
      stopReason,
      signals: ["assertionCoverage"],
      ...(saturated ? { stoppedBy: ["assertionCoverage"] } : {}),
      ...(codeCoveredChars === null ? {} : this.codeFields(codeCoveredChars, assertionQuiet, saturated)),
    };
    return saturated;
  }

  /** What the rule waits for after the latest seed (before the first: everything). */
  wait(): StopRuleWait {
    return {
      quietSeeds: this.quietSeeds,
      requiredQuietSeeds: this.requiredQuietSeeds,
      minSeeds: this.minSeeds,
      maxSeeds: this.maxSeeds,
      unreached: this.unreached,
      noSignal: this.noSignal,
    };
  }

  private codeFields(codeCoveredChars: number, assertionQuiet: number, saturated: boolean): Partial<SaturationReport> {
    const signals: PlateauSignal[] = ["codeCoverage", "assertionCoverage"];
    // The signal that went quiet last is the one whose plateau ended the campaign (both on a tie).
    const quietOf = (s: PlateauSignal) => (s === "codeCoverage" ? this.codeQuietSeeds : assertionQuiet);
    const stoppedBy = signals.filter((s) => quietOf(s) === this.quietSeeds);
    return {
      signal: "codeCoverage",
      signals,
      codeCoveredChars,
      codePlateauSeeds: this.codeQuietSeeds,
      ...(saturated ? { stoppedBy } : {}),
    };
  }
}

function capReason(hit: number, total: number, buckets: number, quietSeeds: number): string {
  if (total + buckets === 0) return "no coverage signal to be stable (add assertSometimes or assertSometimesEach)";
  if (hit < total) return `coverage still misses ${total - hit} of ${total} sometimes assertions`;
  return `coverage still growing (${buckets} sometimesEach buckets, new ones within the last ${quietSeeds} seeds)`;
}

/** Sometimes-style sites seen and reached (sometimesAll: completed). */
function sometimesSites(table: AssertionTable): { hit: number; total: number } {
  const coverage = table.sometimesCoverage();
  let hit = coverage.hit;
  let total = coverage.total;
  for (const detail of table.details()) {
    // Boolean sometimes/reachable and sometimesAll are in sometimesCoverage already.
    if (detail.kind !== "numericSometimes") continue;
    total++;
    if (detail.passCount > 0) hit++;
  }
  return { hit, total };
}
