/**
 * The active simulation as `@moonpool/core` sees it: assertion calls go to the campaign's
 * assertion table, buggify to the seed's buggify state, select offsets to the seed's `select`
 * stream. Between seeds (no session) every call is a no-op, like outside a simulation.
 */
import type {
  AssertionDetails,
  BooleanAssertionKind,
  EachValue,
  NumericComparison,
  SimulationHook,
} from "@moonpool/core";
import { swarmOpEnabled } from "../chaos/buggify.ts";
import type { SeedSession } from "./seed-runner.ts";

export class CampaignHook implements SimulationHook {
  session: SeedSession | null = null;

  constructor(private readonly swarmOperations: boolean) {}

  booleanAssertion(kind: BooleanAssertionKind, condition: boolean, message: string, details?: AssertionDetails): void {
    if (this.session !== null) this.session.table.booleanAssertion(kind, condition, message, details);
  }

  numericAssertion(
    family: "always" | "sometimes",
    comparison: NumericComparison,
    left: number,
    right: number,
    message: string,
    details?: AssertionDetails,
  ): void {
    if (this.session !== null) this.session.table.numericAssertion(family, comparison, left, right, message, details);
  }

  sometimesAll(message: string, propositions: Readonly<Record<string, boolean>>): void {
    if (this.session !== null) this.session.table.sometimesAll(message, propositions);
  }

  sometimesEach(
    message: string,
    identity: Readonly<Record<string, EachValue>>,
    quality?: Readonly<Record<string, number>>,
  ): void {
    if (this.session !== null) this.session.table.sometimesEach(message, identity, quality);
  }

  buggify(id: string, probability: number): boolean {
    return this.session !== null ? this.session.buggify.fires(id, probability) : false;
  }

  buggifyKnob(id: string, defaultValue: number, lo: number, hi: number): number {
    return this.session !== null ? this.session.buggify.knob(id, defaultValue, lo, hi) : defaultValue;
  }

  swarmOpEnabled(opId: number): boolean {
    if (this.session === null || !this.swarmOperations) return true;
    return swarmOpEnabled(this.session.seed, opId);
  }

  selectOffset(branchCount: number): number {
    return this.session !== null ? this.session.world.engine.streams.select.rangeInt(0, branchCount) : 0;
  }
}
