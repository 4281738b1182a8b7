/** `Tracer` for production: one JSON object per line on stderr. */
import { TRACE_LEVEL_ORDER, type TraceFields, type TraceLevel, type Tracer } from "../trace.ts";

export interface ConsoleTracerOptions {
  /** Events below this level are dropped. Default `"info"`. */
  readonly level?: TraceLevel;
  /** Fields added to every event (for example `{ node: "10.0.0.1" }`). */
  readonly fields?: TraceFields;
  /** Where each line goes (without its newline). Default: `process.stderr`. */
  readonly write?: (line: string) => void;
}

const RESERVED = new Set(["ts", "level", "event"]);

function writeStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * Writes `{"ts":"<ISO time>","level":"info","event":"<name>",...fields}` per event. Bigints are
 * written as decimal strings; a field named `ts`, `level` or `event` is written as `_ts`, ...
 */
export class ConsoleTracer implements Tracer {
  readonly level: TraceLevel;
  private readonly floor: number;
  private readonly fields: TraceFields;
  private readonly sink: (line: string) => void;

  constructor(options: ConsoleTracerOptions = {}) {
    this.level = options.level ?? "info";
    if (!Object.hasOwn(TRACE_LEVEL_ORDER, this.level)) {
      throw new RangeError(
        `ConsoleTracer level must be one of trace, debug, info, warn, error; got ${String(this.level)}`,
      );
    }
    this.floor = TRACE_LEVEL_ORDER[this.level];
    this.fields = options.fields ?? {};
    this.sink = options.write ?? writeStderr;
  }

  /** A tracer writing to the same place with `fields` added to every event. */
  child(fields: TraceFields): ConsoleTracer {
    return new ConsoleTracer({ level: this.level, fields: { ...this.fields, ...fields }, write: this.sink });
  }

  /** True when events at `level` are written. */
  enabled(level: TraceLevel): boolean {
    return TRACE_LEVEL_ORDER[level] >= this.floor;
  }

  trace(name: string, fields?: TraceFields): void {
    this.emit("trace", name, fields);
  }
  debug(name: string, fields?: TraceFields): void {
    this.emit("debug", name, fields);
  }
  info(name: string, fields?: TraceFields): void {
    this.emit("info", name, fields);
  }
  warn(name: string, fields?: TraceFields): void {
    this.emit("warn", name, fields);
  }
  error(name: string, fields?: TraceFields): void {
    this.emit("error", name, fields);
  }

  private emit(level: TraceLevel, name: string, fields: TraceFields | undefined): void {
    if (TRACE_LEVEL_ORDER[level] < this.floor) return;
    const record: Record<string, string | number | boolean | null> = {
      ts: new Date().toISOString(),
      level,
      event: name,
    };
    const add = (source: TraceFields): void => {
      for (const [key, value] of Object.entries(source)) {
        record[RESERVED.has(key) ? `_${key}` : key] = typeof value === "bigint" ? value.toString() : value;
      }
    };
    add(this.fields);
    if (fields !== undefined) add(fields);
    this.sink(JSON.stringify(record));
  }
}

/** A tracer that drops every event. */
export class NullTracer implements Tracer {
  trace(): void {}
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(): void {}
}
