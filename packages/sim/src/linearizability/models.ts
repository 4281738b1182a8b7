/**
 * Built-in models over Jepsen-style operations (`{ f, key?, value? }`). An output of `undefined`
 * means the outcome is unknown (a crashed operation), so a read with an unknown result is always
 * legal and a crashed write may apply or not.
 */
import { HistoryError, type History, type OpInput, type Operation } from "./history.ts";
import type { DeterministicModel, StepResult } from "./model.ts";

type Op = OpInput;

// Values are compared structurally; primitives (the common case) without serialising.
const same = (a: unknown, b: unknown): boolean =>
  a === b ||
  (typeof a === "object" &&
    typeof b === "object" &&
    a !== null &&
    b !== null &&
    JSON.stringify(a) === JSON.stringify(b));
const yes = <S>(state: S): StepResult<S> => ({ ok: true, state });

function textHash(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** A value's 32-bit hash: primitives directly, anything else through its JSON (rare in histories). */
function valueHash(v: unknown): number {
  if (typeof v === "string") return textHash(v, 0x811c9dc5);
  if (typeof v === "number" && Number.isInteger(v)) return Math.imul(v | 0, 0x9e3779b1) ^ 0x2545f491;
  return textHash(JSON.stringify(v) ?? "undefined", 0x3c6ef372);
}

const LIST_SEED = 0x6a09e667;

/**
 * A value kvModel built by appends: a persistent list that shares its prefix, so an append costs
 * O(1) as a string concatenation does (copying the array at every search step, and keeping every
 * copy in the memo, was most of the checker's time), with its hash kept as it grows. It prints
 * (JSON) as the array it stands for.
 */
class AppendList {
  readonly length: number;
  readonly hash: number;
  constructor(
    readonly prev: AppendList | null,
    readonly value: unknown,
  ) {
    this.length = prev === null ? 1 : prev.length + 1;
    this.hash = Math.imul((prev === null ? LIST_SEED : prev.hash) ^ valueHash(value), 0x01000193) | 0;
  }

  toJSON(): unknown[] {
    const out = new Array<unknown>(this.length);
    let i = this.length - 1;
    for (let n: AppendList | null = this; n !== null; n = n.prev) out[i--] = n.value;
    return out;
  }
}

/** The same hash for an array as for the AppendList of its elements. */
function listHash(list: readonly unknown[] | AppendList): number {
  if (list instanceof AppendList) return list.hash;
  let h = LIST_SEED;
  for (const v of list) h = Math.imul(h ^ valueHash(v), 0x01000193) | 0;
  return h;
}

function appended(current: readonly unknown[] | AppendList | null, value: unknown): AppendList {
  if (current === null || current instanceof AppendList) return new AppendList(current, value);
  let list: AppendList | null = null;
  for (const v of current) list = new AppendList(list, v);
  return new AppendList(list, value);
}

/** Whether an AppendList holds exactly the values of `other` (an AppendList or an array). */
function sameList(list: AppendList, other: unknown): boolean {
  if (other instanceof AppendList) {
    if (other.length !== list.length || other.hash !== list.hash) return false;
    for (
      let a: AppendList | null = list, b: AppendList | null = other;
      a !== null && b !== null;
      a = a.prev, b = b.prev
    ) {
      if (a === b) return true;
      if (!deepEqual(a.value, b.value)) return false;
    }
    return true;
  }
  if (!Array.isArray(other) || other.length !== list.length) return false;
  let i = other.length - 1;
  for (let n: AppendList | null = list; n !== null; n = n.prev) if (!deepEqual(n.value, other[i--])) return false;
  return true;
}

/** Structural equality of JSON-like values without serialising: what `same` confirms with JSON otherwise. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof AppendList) return sameList(a, b);
  if (b instanceof AppendList) return sameList(b, a);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  return !Array.isArray(b) && JSON.stringify(a) === JSON.stringify(b);
}
const no = <S>(state: S): StepResult<S> => ({ ok: false, state });

// A HistoryError, not a plain Error: the history is what has to change, and `moonpool check-history`
// reports it as one line (exit 2) rather than a verdict.
function unknownFunction(model: string, f: string, allowed: string): never {
  throw new HistoryError(`${model} model: unknown operation ${JSON.stringify(f)}; use one of ${allowed}`);
}

/** `f key value → output`; `?` for an unknown outcome, `ok` for a plain acknowledgement. */
export function describeOp(input: Op, output: unknown): string {
  const arg = input.value === undefined || input.value === null ? "" : ` ${JSON.stringify(input.value)}`;
  const key = input.key === undefined ? "" : ` ${input.key}`;
  const out = output === undefined ? "?" : output === true ? "ok" : JSON.stringify(output);
  return `${input.f}${key}${arg} → ${out}`;
}

/**
 * Drops crashed writes whose value no other operation of the part mentions. Such a write never
 * has to take effect, and taking effect could only make reads of the earlier value impossible,
 * so the verdict is the same without it and the search no longer tries it at every position.
 */
function pruneUnobservedCrashedWrites<I extends Op, O>(writes: readonly string[]) {
  return (part: History<I, O>): History<I, O> => {
    const mentioned = new Set<string>();
    for (const op of part) {
      if (op.crashed && writes.includes(op.input.f)) continue;
      if (op.input.value !== undefined) collect(op.input.value, mentioned);
      if (op.output !== undefined) collect(op.output, mentioned);
    }
    return part.filter(
      (op) => !(op.crashed && writes.includes(op.input.f) && !mentioned.has(JSON.stringify(op.input.value))),
    );
  };
}

function collect(value: unknown, into: Set<string>): void {
  into.add(JSON.stringify(value));
  if (Array.isArray(value)) for (const v of value) collect(v, into);
}

/** Read/write register. `read` → output value; `write value`. */
export function registerModel(initial: unknown = null): DeterministicModel<unknown, Op, unknown> {
  return {
    name: "register",
    init: () => initial,
    step(state, input, output) {
      if (input.f === "read") return output === undefined || same(state, output) ? yes(state) : no(state);
      if (input.f === "write") return yes(input.value);
      return unknownFunction("register", input.f, "read, write");
    },
    prune: pruneUnobservedCrashedWrites(["write"]),
    describe: describeOp,
  };
}

/**
 * Compare-and-set register: `read`, `write value`, `cas [expected, new]` whose output is `true`
 * (swapped), `false` (the value was not `expected`) or unknown.
 */
export function casRegisterModel(initial: unknown = null): DeterministicModel<unknown, Op, unknown> {
  return {
    name: "cas-register",
    init: () => initial,
    step(state, input, output) {
      if (input.f === "read") return output === undefined || same(state, output) ? yes(state) : no(state);
      if (input.f === "write") return yes(input.value);
      if (input.f === "cas") {
        const [expected, next] = input.value as [unknown, unknown];
        const matches = same(state, expected);
        if (output === false) return matches ? no(state) : yes(state);
        return matches ? yes(next) : no(state);
      }
      return unknownFunction("cas-register", input.f, "read, write, cas");
    },
    prune: pruneUnobservedCrashedWrites(["write"]),
    describe: describeOp,
  };
}

type KvState = Readonly<Record<string, unknown>>;

/** Splits a keyed history into one part per key, for models whose keys are independent. */
export function partitionByKey<I extends Op, O>(history: History<I, O>): History<I, O>[] {
  const parts = new Map<string, Operation<I, O>[]>();
  for (const op of history) {
    const key = op.input.key ?? "";
    let part = parts.get(key);
    if (part === undefined) parts.set(key, (part = []));
    part.push(op);
  }
  return [...parts.values()];
}

/**
 * Key-value map: `get key` → value (`null` when absent), `put key value`, `append key value`
 * (the value becomes an array with `value` at the end). Checked one key at a time.
 */
export function kvModel(): DeterministicModel<KvState, Op, unknown> {
  const valueOf = (s: KvState, key: string): unknown => (Object.hasOwn(s, key) ? s[key] : null);
  return {
    name: "kv",
    init: () => ({}),
    step(state, input, output) {
      const key = input.key;
      if (key === undefined) {
        throw new HistoryError(
          `kv model: operation ${input.f} has no key; give every operation one (:key in EDN records, "key" in JSON)`,
        );
      }
      const current = valueOf(state, key);
      if (input.f === "get") return output === undefined || deepEqual(current, output) ? yes(state) : no(state);
      if (input.f === "put") return yes({ ...state, [key]: input.value });
      if (input.f === "append") {
        if (current !== null && !Array.isArray(current) && !(current instanceof AppendList)) return no(state);
        return yes({ ...state, [key]: appended(current as unknown[] | AppendList | null, input.value) });
      }
      return unknownFunction("kv", input.f, "get, put, append");
    },
    partition: partitionByKey,
    // Only puts: an append's effect is seen inside later values, never as its own value.
    prune: pruneUnobservedCrashedWrites(["put"]),
    // A number (the sum of per-key hashes, so key order does not matter) confirmed by `equal`:
    // serialising every value at every step made the checker several times slower than the
    // same search over plain strings.
    hash: (s) => {
      let h = 0;
      for (const k in s) {
        const v = s[k];
        const valueId = v instanceof AppendList || Array.isArray(v) ? listHash(v) : valueHash(v);
        h = (h + Math.imul(textHash(k, 0x811c9dc5) ^ valueId, 0x85ebca6b)) | 0;
      }
      return h;
    },
    equal: (a, b) => {
      const keys = Object.keys(a);
      if (keys.length !== Object.keys(b).length) return false;
      for (const k of keys) if (!Object.hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
      return true;
    },
    describe: describeOp,
  };
}

/** Grow-only set: `add value`; `read` → the members as an array, in any order. */
export function setModel(): DeterministicModel<readonly string[], Op, unknown> {
  const canonical = (values: readonly unknown[]) => [...new Set(values.map((v) => JSON.stringify(v)))].sort();
  return {
    name: "set",
    init: () => [],
    step(state, input, output) {
      if (input.f === "add") {
        const member = JSON.stringify(input.value);
        return yes(state.includes(member) ? state : [...state, member].sort());
      }
      if (input.f === "read") {
        if (output === undefined) return yes(state);
        if (!Array.isArray(output)) return no(state);
        const read = canonical(output);
        return read.length === state.length && read.every((m, i) => m === state[i]) ? yes(state) : no(state);
      }
      return unknownFunction("set", input.f, "add, read");
    },
    describeState: (s) => `{${s.join(", ")}}`,
    describe: describeOp,
  };
}

/** FIFO queue: `enqueue value`; `dequeue` → the oldest value, or `null` when empty. */
export function fifoQueueModel(): DeterministicModel<readonly unknown[], Op, unknown> {
  return {
    name: "fifo-queue",
    init: () => [],
    step(state, input, output) {
      if (input.f === "enqueue") return yes([...state, input.value]);
      if (input.f === "dequeue") {
        if (state.length === 0) return output === undefined || output === null ? yes(state) : no(state);
        if (output === null) return no(state);
        return output === undefined || same(state[0], output) ? yes(state.slice(1)) : no(state);
      }
      return unknownFunction("fifo-queue", input.f, "enqueue, dequeue");
    },
    describe: describeOp,
  };
}

/** Mutex: `acquire` succeeds only when free, `release` only when held. */
export function mutexModel(): DeterministicModel<boolean, Op, unknown> {
  return {
    name: "mutex",
    init: () => false,
    step(held, input) {
      if (input.f === "acquire") return held ? no(held) : yes(true);
      if (input.f === "release") return held ? yes(false) : no(held);
      return unknownFunction("mutex", input.f, "acquire, release");
    },
    describeState: (held) => (held ? "held" : "free"),
    describe: describeOp,
  };
}

type Micro = readonly [f: string, key: string, value: unknown];

/**
 * Registers updated by transactions: `txn [[read k v] [write k v] ...]`; a read of `null` or
 * `undefined` is unknown. The output is ignored (the completed transaction is the input).
 */
export function multiRegisterModel(
  initial: Readonly<Record<string, unknown>> = {},
): DeterministicModel<KvState, Op, unknown> {
  return {
    name: "multi-register",
    init: () => initial,
    step(state, input) {
      if (input.f !== "txn") return unknownFunction("multi-register", input.f, "txn");
      let next: Record<string, unknown> | undefined;
      for (const [f, key, value] of input.value as Micro[]) {
        const current = (next ?? state)[key] ?? null;
        if (f === "read") {
          if (value !== null && value !== undefined && !same(current, value)) return no(state);
        } else if (f === "write") {
          next ??= { ...state };
          next[key] = value;
        } else return unknownFunction("multi-register", `txn ${f}`, "read, write");
      }
      return yes(next ?? state);
    },
    hash: (s) =>
      JSON.stringify(
        Object.keys(s)
          .sort()
          .map((k) => [k, s[k]]),
      ),
    describe: describeOp,
  };
}

/** The built-in models by name, for the command line and imported histories. */
export const BUILT_IN_MODELS = {
  register: () => registerModel(),
  "cas-register": () => casRegisterModel(),
  kv: () => kvModel(),
  set: () => setModel(),
  "fifo-queue": () => fifoQueueModel(),
  mutex: () => mutexModel(),
  "multi-register": () => multiRegisterModel(),
} as const;

export type BuiltInModelName = keyof typeof BUILT_IN_MODELS;
