/**
 * Records a client-side history during a simulation: `invoke` before a request is sent, then
 * `ok`, `fail` (it certainly had no effect) or `info` (outcome unknown) when its answer comes
 * back. Events are numbered in the order they happen, which is the real-time order the checker
 * needs; each event also goes into the trace as a `history` fact.
 */
import type { Tracer } from "@moonpool/core";
import { HistoryError, type OpInput, type Operation } from "./history.ts";

export type HistoryEventType = "invoke" | "ok" | "fail" | "info";

/** One recorded event; plain data for the trace and the JSON report. */
export interface HistoryEvent {
  readonly index: number;
  readonly type: HistoryEventType;
  readonly client: string;
  readonly op: number;
  readonly input: OpInput;
  readonly output?: unknown;
  readonly timeMs: number;
}

export interface HistoryRecorderOptions {
  /** Stamps events with simulated time (a context's `time`). */
  readonly time?: { now(): number };
  /** Where `history` facts go (a context's `trace`); omit to keep the history in memory only. */
  readonly trace?: Tracer;
  /** Trace event name; default `history`. */
  readonly eventName?: string;
}

/** The handle of one invoked operation; complete it exactly once. */
export interface PendingOperation<O> {
  ok(output?: O): void;
  /** The operation certainly did not take effect (e.g. rejected before it ran). */
  fail(): void;
  /** The outcome is unknown (timeout, lost connection): it may take effect later, or never. */
  info(): void;
}

export class HistoryRecorder<I extends OpInput = OpInput, O = unknown> {
  private readonly recorded: HistoryEvent[] = [];
  private readonly open = new Set<number>();
  private nextOp = 0;

  constructor(private readonly options: HistoryRecorderOptions = {}) {}

  invoke(client: string, input: I): PendingOperation<O> {
    const op = this.nextOp++;
    this.open.add(op);
    this.push("invoke", client, op, input, undefined);
    const complete = (type: Exclude<HistoryEventType, "invoke">, output?: O) => {
      if (!this.open.delete(op)) {
        throw new HistoryError(`operation ${op} (${input.f} by ${client}) was already completed; complete each once`);
      }
      this.push(type, client, op, input, output);
    };
    return {
      ok: (output?: O) => complete("ok", output),
      fail: () => complete("fail"),
      info: () => complete("info"),
    };
  }

  /** Events recorded so far, in order. */
  get events(): readonly HistoryEvent[] {
    return this.recorded;
  }

  /** Operations invoked so far. */
  get operationCount(): number {
    return this.nextOp;
  }

  /**
   * The history to check: failed operations dropped, `info` and never-completed operations
   * crashed (they may take effect at any point after their invocation, or never).
   */
  history(): Operation<I, O>[] {
    return historyFromEvents<I, O>(this.recorded);
  }

  private push(type: HistoryEventType, client: string, op: number, input: OpInput, output: unknown): void {
    const timeMs = this.options.time?.now() ?? 0;
    const event: HistoryEvent = {
      index: this.recorded.length,
      type,
      client,
      op,
      input,
      timeMs,
      ...(type === "ok" ? { output } : {}),
    };
    this.recorded.push(event);
    const trace = this.options.trace;
    if (trace === undefined) return;
    trace.info(this.options.eventName ?? "history", {
      type,
      client,
      op,
      f: input.f,
      key: input.key ?? null,
      value: input.value === undefined ? null : JSON.stringify(input.value),
      output: type === "ok" && output !== undefined ? JSON.stringify(output) : null,
    });
  }
}

/** Builds operations from recorded events (see `HistoryRecorder.history`). */
export function historyFromEvents<I = OpInput, O = unknown>(events: readonly HistoryEvent[]): Operation<I, O>[] {
  const invokes = new Map<number, HistoryEvent>();
  const done = new Map<number, HistoryEvent>();
  for (const e of events) {
    if (e.type === "invoke") invokes.set(e.op, e);
    else if (!invokes.has(e.op))
      throw new HistoryError(`history event ${e.index} completes operation ${e.op}, which was never invoked`);
    else done.set(e.op, e);
  }
  const ops: Operation<I, O>[] = [];
  for (const call of invokes.values()) {
    const end = done.get(call.op);
    if (end?.type === "fail") continue;
    const crashed = end === undefined || end.type === "info";
    ops.push({
      id: ops.length,
      client: call.client,
      input: call.input as I,
      output: crashed ? undefined : (end.output as O),
      callIndex: call.index,
      returnIndex: crashed ? Number.POSITIVE_INFINITY : end.index,
      crashed,
      callTimeMs: call.timeMs,
      ...(crashed ? {} : { returnTimeMs: end.timeMs }),
    });
  }
  return ops;
}
