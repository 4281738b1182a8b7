/**
 * `builder.printTrace(level)`: prints each seed's trace from the chosen level up once the seed has
 * run, for debugging a simulation from code (the CLI's `moonpool replay` prints one seed's trace).
 */
import { TRACE_LEVEL_ORDER, type TraceLevel } from "@moonpool/core";
import type { TraceEvent } from "../world/trace-log.ts";

export interface TracePrinting {
  readonly level: TraceLevel;
  /** Receives each printed line (default: standard error). */
  readonly sink: ((line: string) => void) | null;
}

/** Prints the events of one seed at `printing.level` or above, under a header naming the seed. */
export function printSeedTrace(printing: TracePrinting, seed: number, events: readonly TraceEvent[]): void {
  const write = printing.sink ?? ((line: string) => process.stderr.write(line + "\n"));
  const floor = TRACE_LEVEL_ORDER[printing.level];
  const shown = events.filter((e) => TRACE_LEVEL_ORDER[e.level] >= floor);
  write(`--- trace of seed ${seed} (${printing.level} and above, ${shown.length} of ${events.length} events) ---`);
  for (const event of shown) write(event.format());
}

/** The lower of two optional levels: what a seed keeps beside its trace for printing and for replay. */
export function lowerLevel(a: TraceLevel | undefined, b: TraceLevel | undefined): TraceLevel | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return TRACE_LEVEL_ORDER[b] < TRACE_LEVEL_ORDER[a] ? b : a;
}
