/**
 * A configuration value as the user wrote it, for error messages: `NaN`, `Infinity`, `10n`,
 * `'ten'`, `[ 1, NaN ]`, `undefined` (JSON.stringify would print `null` for the first two and
 * nothing at all for some others).
 */
import { inspect } from "node:util";

export function writtenValue(value: unknown): string {
  return inspect(value, { depth: 2, breakLength: Number.POSITIVE_INFINITY, maxArrayLength: 10, maxStringLength: 200 });
}
