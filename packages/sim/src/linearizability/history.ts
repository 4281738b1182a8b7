/**
 * A history: what each client asked and what it got. Operations are ordered by their position in
 * one total order of events (invocations and completions), which in a simulation is the order in
 * which they happened, so real-time precedence is exact even when simulated time stands still.
 */

/** A single operation's input in the Jepsen style: a function name and its argument. */
export interface OpInput {
  readonly f: string;
  readonly key?: string;
  readonly value?: unknown;
}

export interface Operation<I = OpInput, O = unknown> {
  /** Dense index of this operation in its history (0-based). */
  readonly id: number;
  readonly client: string;
  readonly input: I;
  /** The observed result; `undefined` when the operation crashed (outcome unknown). */
  readonly output: O | undefined;
  /** Position of the invocation in the history's event order. */
  readonly callIndex: number;
  /** Position of the completion; `Infinity` for a crashed (indeterminate) operation. */
  readonly returnIndex: number;
  /** Indeterminate: it may have taken effect at any point after its invocation, or never. */
  readonly crashed: boolean;
  /** Simulated (or recorded) time of the invocation and completion, for display. */
  readonly callTimeMs?: number;
  readonly returnTimeMs?: number;
}

export type History<I = OpInput, O = unknown> = readonly Operation<I, O>[];

/**
 * Thrown for histories that cannot be checked as given: a completion without an invocation, or an
 * operation the model cannot read (an unknown function, a kv operation without a key).
 */
export class HistoryError extends Error {
  override readonly name = "HistoryError";
}

/** Renumbers a subset of operations (a partition) with dense ids, keeping event positions. */
export function renumber<I, O>(ops: readonly Operation<I, O>[]): Operation<I, O>[] {
  return ops.map((op, id) => ({ ...op, id }));
}
