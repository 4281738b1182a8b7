/**
 * What a linearizability model is: a sequential specification the checker replays operations
 * against. A model is a plain object; nondeterministic models return every possible next state
 * and are checked over sets of states.
 */
import type { History, OpInput } from "./history.ts";

export interface StepResult<S> {
  readonly ok: boolean;
  readonly state: S;
}

interface ModelCommon<S, I, O> {
  readonly name: string;
  /** Splits a history into independent parts (e.g. by key) that are checked separately. */
  partition?(history: History<I, O>): History<I, O>[];
  /**
   * Drops operations that can never change the verdict of a part (for example a crashed write
   * of a value nobody observed: leaving it out is always at least as good as placing it).
   */
  prune?(part: History<I, O>): History<I, O>;
  /** A state's identity for memoisation; default `JSON.stringify`. Equal states must hash equal. */
  hash?(state: S): string | number;
  /** Confirms equality of two states with equal hashes; default: equal hashes are equal states. */
  equal?(a: S, b: S): boolean;
  /** One line for an operation in explanations; `output` is `undefined` when the outcome is unknown. */
  describe?(input: I, output: O | undefined): string;
  describeState?(state: S): string;
}

export interface DeterministicModel<S = unknown, I = OpInput, O = unknown> extends ModelCommon<S, I, O> {
  readonly nondeterministic?: false;
  init(): S;
  step(state: S, input: I, output: O | undefined): StepResult<S>;
}

export interface NondeterministicModel<S = unknown, I = OpInput, O = unknown> extends ModelCommon<S, I, O> {
  readonly nondeterministic: true;
  /** Every possible initial state. */
  init(): readonly S[];
  /** Every state the operation may lead to; empty when the operation is impossible in `state`. */
  step(state: S, input: I, output: O | undefined): readonly S[];
}

export type Model<S = unknown, I = OpInput, O = unknown> = DeterministicModel<S, I, O> | NondeterministicModel<S, I, O>;

export class ModelError extends Error {
  override readonly name = "ModelError";
}

// Numbers hash to themselves (cheap, and never equal to a string key); the rest is serialised.
const defaultHash = (state: unknown): string | number =>
  typeof state === "number" ? state : (JSON.stringify(state) ?? "undefined");

/** The deterministic form the search runs on: a nondeterministic model becomes one over state sets. */
export interface SearchModel<I, O> {
  init(): unknown;
  step(state: unknown, input: I, output: O | undefined): StepResult<unknown>;
  key(state: unknown): string | number;
  equal(a: unknown, b: unknown): boolean;
  describeState(state: unknown): string;
}

export function searchModel<S, I, O>(model: Model<S, I, O>): SearchModel<I, O> {
  if (typeof model.init !== "function" || typeof model.step !== "function") {
    throw new ModelError(`model ${JSON.stringify(model.name)} needs init() and step(state, input, output) functions`);
  }
  const hash = (model.hash ?? defaultHash) as (s: S) => string | number;
  const equalOne = model.equal;
  const describeOne = (s: S): string =>
    model.describeState ? model.describeState(s) : (JSON.stringify(s) ?? "undefined");
  if (model.nondeterministic !== true) {
    const m = model as DeterministicModel<S, I, O>;
    return {
      init: () => m.init(),
      step: (s, i, o) => m.step(s as S, i, o),
      key: (s) => hash(s as S),
      equal: equalOne ? (a, b) => equalOne(a as S, b as S) : () => true,
      describeState: (s) => describeOne(s as S),
    };
  }
  const m = model as NondeterministicModel<S, I, O>;
  // A set of states, kept sorted by hash so that equal sets have equal keys.
  const normalise = (states: readonly S[]): S[] => {
    const seen = new Map<string | number, S>();
    for (const s of states) if (!seen.has(hash(s))) seen.set(hash(s), s);
    return [...seen.entries()].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)).map((e) => e[1]);
  };
  return {
    init: () => normalise(m.init()),
    step: (set, i, o) => {
      const next = normalise((set as S[]).flatMap((s) => m.step(s, i, o)));
      return { ok: next.length > 0, state: next };
    },
    key: (set) => (set as S[]).map((s) => String(hash(s))).join("\u0001"),
    equal: equalOne
      ? (a, b) => (a as S[]).length === (b as S[]).length && (a as S[]).every((s, k) => equalOne(s, (b as S[])[k] as S))
      : () => true,
    describeState: (set) => `{${(set as S[]).map(describeOne).join(", ")}}`,
  };
}
