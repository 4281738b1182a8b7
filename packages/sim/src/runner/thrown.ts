/**
 * The text of whatever user code threw, for a seed failure: an Error's name and message with
 * its causes and, for an AggregateError, the errors it holds; any other value as Node's
 * `util.inspect` shows it (`String()` gives "[object Object]", or throws for a null-prototype object).
 */
import { inspect } from "node:util";

/** Causes and aggregated errors followed at most this deep. */
const MAX_DEPTH = 3;

function describe(value: unknown, depth: number): string {
  if (!(value instanceof Error)) {
    return typeof value === "string" ? value : inspect(value, { depth: 2, breakLength: Infinity });
  }
  let text = value.message === "" ? `${value.name} (with no message)` : `${value.name}: ${value.message}`;
  if (depth >= MAX_DEPTH) return text;
  if (value instanceof AggregateError && Array.isArray(value.errors) && value.errors.length > 0) {
    text += ` [${value.errors.map((e: unknown) => describe(e, depth + 1)).join("; ")}]`;
  }
  if (value.cause !== undefined) text += ` (cause: ${describe(value.cause, depth + 1)})`;
  return text;
}

/** Message and stack of a thrown value; no stack unless it is an Error. */
export function thrownFields(value: unknown): { message: string; stack?: string } {
  const message = describe(value, 0);
  return value instanceof Error && typeof value.stack === "string" ? { message, stack: value.stack } : { message };
}
