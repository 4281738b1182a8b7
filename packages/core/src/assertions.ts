/**
 * Antithesis-style assertions. They record, they never throw: the simulation report is the
 * authority. The message is the property's identity: keep it constant (no interpolated ids),
 * and use one message for one assertion kind.
 *
 * Outside a simulation every function is a no-op, so these calls can stay in production code.
 */
import { activeSimulation, type AssertionDetails, type EachValue } from "./hook.ts";

/** `condition` must hold every time this line runs; a failure fails the seed. */
export function assertAlways(condition: boolean, message: string, details?: AssertionDetails): void {
  activeSimulation()?.booleanAssertion("always", condition, message, details);
}

/** Like `assertAlways`, but never reaching it is fine. */
export function assertAlwaysOrUnreachable(condition: boolean, message: string, details?: AssertionDetails): void {
  activeSimulation()?.booleanAssertion("alwaysOrUnreachable", condition, message, details);
}

/** `condition` must be true at least once across the campaign (a coverage goal, and a guide). */
export function assertSometimes(condition: boolean, message: string): void {
  activeSimulation()?.booleanAssertion("sometimes", condition, message);
}

/** This line must run at least once across the campaign. */
export function assertReachable(message: string): void {
  activeSimulation()?.booleanAssertion("reachable", true, message);
}

/** This line must never run; reaching it fails the seed. */
export function assertUnreachable(message: string, details?: AssertionDetails): void {
  activeSimulation()?.booleanAssertion("unreachable", true, message, details);
}

export function assertAlwaysGreaterThan(
  left: number,
  right: number,
  message: string,
  details?: AssertionDetails,
): void {
  activeSimulation()?.numericAssertion("always", "gt", left, right, message, details);
}
export function assertAlwaysGreaterThanOrEqualTo(
  left: number,
  right: number,
  message: string,
  details?: AssertionDetails,
): void {
  activeSimulation()?.numericAssertion("always", "ge", left, right, message, details);
}
export function assertAlwaysLessThan(left: number, right: number, message: string, details?: AssertionDetails): void {
  activeSimulation()?.numericAssertion("always", "lt", left, right, message, details);
}
export function assertAlwaysLessThanOrEqualTo(
  left: number,
  right: number,
  message: string,
  details?: AssertionDetails,
): void {
  activeSimulation()?.numericAssertion("always", "le", left, right, message, details);
}

/**
 * Numeric guidance: passes when `left > right`; its watermark maximises the distance
 * `left - right` (each improvement is a discovery the explorer can branch from).
 */
export function assertSometimesGreaterThan(left: number, right: number, message: string): void {
  activeSimulation()?.numericAssertion("sometimes", "gt", left, right, message);
}
export function assertSometimesGreaterThanOrEqualTo(left: number, right: number, message: string): void {
  activeSimulation()?.numericAssertion("sometimes", "ge", left, right, message);
}
/** Passes when `left < right`; its watermark minimises `left - right`. */
export function assertSometimesLessThan(left: number, right: number, message: string): void {
  activeSimulation()?.numericAssertion("sometimes", "lt", left, right, message);
}
export function assertSometimesLessThanOrEqualTo(left: number, right: number, message: string): void {
  activeSimulation()?.numericAssertion("sometimes", "le", left, right, message);
}

/**
 * Every proposition must be true at the same time at least once. Guides on the best number of
 * simultaneous truths and on new partial combinations; complete only when all are true together.
 */
export function assertSometimesAll(message: string, propositions: Readonly<Record<string, boolean>>): void {
  activeSimulation()?.sometimesAll(message, propositions);
}

/**
 * Bucketed guidance: one bucket per distinct `identity` (values in key order; keep them coarse
 * and bounded), ranked inside the bucket by up to four `quality` values (higher is better,
 * clamped to 0..32767, first key most important).
 */
export function assertSometimesEach(
  message: string,
  identity: Readonly<Record<string, EachValue>>,
  quality?: Readonly<Record<string, number>>,
): void {
  activeSimulation()?.sometimesEach(message, identity, quality);
}
