/**
 * The per-seed timeline of trace facts: `ctx.trace.info("value_chosen", {...})` from processes and
 * workloads, `sim_fault` events from the simulator, and captured `console.*` output. Invariants
 * read it through cursors after every step.
 */
import { TRACE_LEVEL_ORDER, type TraceFields, type TraceLevel, type TraceValue } from "@moonpool/core";

export const SIM_FAULT_EVENT_NAME = "sim_fault";
export const CONSOLE_EVENT_NAME = "console";
/** The trace level of each `console` method's output. */
export const CONSOLE_LEVEL: Readonly<Record<string, TraceLevel>> = {
  log: "info",
  info: "info",
  warn: "warn",
  error: "error",
  debug: "debug",
  trace: "debug",
};
/** A fault occurrence a shrunk run's overrides left out: `{ kind, ordinal }` (see `World.skipFault`). */
export const SIM_FAULT_SKIPPED_EVENT_NAME = "sim_fault_skipped";

/** `sim_fault` kinds that undo or complete an earlier fault rather than inject one. */
const NOT_INJECTION_KINDS = new Set(["process_restart", "process_force_kill"]);

/** Whether a `sim_fault` of `kind` injects something (heals, restarts and force-kills of a reboot do not). */
export function isInjectionKind(kind: string): boolean {
  return !kind.endsWith("_healed") && !NOT_INJECTION_KINDS.has(kind);
}

export class TraceEvent {
  constructor(
    /** Position in the seed's timeline (0-based, all names together). */
    readonly seq: number,
    /** Simulated time in ms (microsecond precision). */
    readonly timeMs: number,
    /** The actor that emitted it (`node-1@10.0.1.1`), or `sim` for built-in faults. */
    readonly source: string,
    readonly level: TraceLevel,
    readonly name: string,
    readonly fields: TraceFields,
  ) {}

  num(key: string): number | undefined {
    const v = this.fields[key];
    if (typeof v === "number") return v;
    if (typeof v === "bigint" && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER))
      return Number(v);
    return undefined;
  }

  str(key: string): string | undefined {
    const v = this.fields[key];
    return typeof v === "string" ? v : undefined;
  }

  bool(key: string): boolean | undefined {
    const v = this.fields[key];
    return typeof v === "boolean" ? v : undefined;
  }

  /** One readable line: `[   12.345ms] info  node-1@10.0.1.1 value_chosen slot=1 value="a"`. */
  format(): string {
    const parts = Object.entries(this.fields).map(([k, v]) => `${k}=${formatValue(v)}`);
    return `[${this.timeMs.toFixed(3).padStart(12)}ms] ${this.level.padEnd(5)} ${this.source} ${this.name}${parts.length ? " " + parts.join(" ") : ""}`;
  }
}

function formatValue(v: TraceValue): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return `${v}n`;
  return String(v);
}

/** Remembers, per event name, how far an invariant has read. One cursor can follow several names. */
export class TraceCursor {
  private readonly positions = new Map<string, number>();

  position(name: string): number {
    return this.positions.get(name) ?? 0;
  }

  advance(name: string, to: number): void {
    this.positions.set(name, to);
  }

  reset(): void {
    this.positions.clear();
  }
}

export interface TraceQuery {
  /** Events named `name` not yet returned through `cursor`; advances the cursor. */
  since(name: string, cursor: TraceCursor): readonly TraceEvent[];
  /** How many events named `name` exist so far. */
  count(name: string): number;
  /**
   * Every event named `name` so far (a copy). Read after every step, it makes a seed quadratic in
   * its facts: invariants keep what they need through `since` (docs/invariants.md).
   */
  snapshot(name: string): readonly TraceEvent[];
}

const EMPTY: readonly TraceEvent[] = Object.freeze([]);

/**
 * A frozen copy of an event's fields. Copied key by key: once the spread's inline cache has seen many shapes, a spread
 * gives each copy a hidden class of its own, so freezing it made a new one per event (and every reader's inline
 * caches megamorphic).
 */
function frozenCopy(fields: TraceFields): TraceFields {
  // An own `__proto__` key would go through the setter with `assign`; the spread defines it like any other key.
  return Object.freeze(Object.hasOwn(fields, "__proto__") ? { ...fields } : Object.assign({}, fields));
}

export class TraceLog implements TraceQuery {
  readonly all: TraceEvent[] = [];
  private readonly byName = new Map<string, TraceEvent[]>();
  /** Called for every captured event (the runner mixes it into the trace hash). */
  onEvent: ((event: TraceEvent) => void) | null = null;
  /**
   * With a print level below the floor (`builder.printTrace`): every event at the print level or
   * above, in order. Those below the floor are only printed: no queries, no hash, seq -1.
   */
  readonly printable: TraceEvent[] | null;

  constructor(
    readonly floor: TraceLevel = "info",
    readonly printFloor: TraceLevel = floor,
  ) {
    this.printable = TRACE_LEVEL_ORDER[printFloor] < TRACE_LEVEL_ORDER[floor] ? [] : null;
  }

  captures(level: TraceLevel): boolean {
    return TRACE_LEVEL_ORDER[level] >= Math.min(TRACE_LEVEL_ORDER[this.floor], TRACE_LEVEL_ORDER[this.printFloor]);
  }

  record(timeMs: number, source: string, level: TraceLevel, name: string, fields: TraceFields): TraceEvent | undefined {
    const below = TRACE_LEVEL_ORDER[level] < TRACE_LEVEL_ORDER[this.floor];
    if (below && (this.printable === null || TRACE_LEVEL_ORDER[level] < TRACE_LEVEL_ORDER[this.printFloor]))
      return undefined;
    if (typeof name !== "string" || name.length === 0) {
      throw new TypeError(
        'a trace event needs a non-empty constant name, e.g. ctx.trace.info("value_chosen", { slot })',
      );
    }
    if (below) {
      this.printable!.push(new TraceEvent(-1, timeMs, source, level, name, frozenCopy(fields)));
      return undefined;
    }
    const event = new TraceEvent(this.all.length, timeMs, source, level, name, frozenCopy(fields));
    this.all.push(event);
    this.printable?.push(event);
    let list = this.byName.get(name);
    if (list === undefined) {
      list = [];
      this.byName.set(name, list);
    }
    list.push(event);
    this.onEvent?.(event);
    return event;
  }

  since(name: string, cursor: TraceCursor): readonly TraceEvent[] {
    const list = this.byName.get(name);
    if (list === undefined) return EMPTY;
    const from = cursor.position(name);
    if (from >= list.length) return EMPTY;
    cursor.advance(name, list.length);
    return list.slice(from);
  }

  count(name: string): number {
    return this.byName.get(name)?.length ?? 0;
  }

  snapshot(name: string): readonly TraceEvent[] {
    return this.byName.get(name)?.slice() ?? EMPTY;
  }
}
