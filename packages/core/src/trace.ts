/** Flat fields of a trace event: no nesting, so invariants read them without parsing. */
export type TraceValue = string | number | boolean | bigint | null;
export type TraceFields = Readonly<Record<string, TraceValue>>;

export type TraceLevel = "trace" | "debug" | "info" | "warn" | "error";

/** Numeric order of levels; an event is captured when its level is >= the capture floor. */
export const TRACE_LEVEL_ORDER: Readonly<Record<TraceLevel, number>> = {
  trace: 0,
  debug: 1,
  info: 2,
  warn: 3,
  error: 4,
};

/**
 * Structured facts emitted by server and driver code. The event name is a constant
 * (`"value_chosen"`), the fields are flat. The simulator stamps simulated time and the actor.
 */
export interface Tracer {
  trace(name: string, fields?: TraceFields): void;
  debug(name: string, fields?: TraceFields): void;
  info(name: string, fields?: TraceFields): void;
  warn(name: string, fields?: TraceFields): void;
  error(name: string, fields?: TraceFields): void;
}
