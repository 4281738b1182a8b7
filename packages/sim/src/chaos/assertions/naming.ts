/** Assertion function names and failure texts, plus the numeric comparison and option checks they share. */
import type { AssertionDetails, NumericComparison } from "@moonpool/core";
import type { AssertionKind } from "./shapes.ts";

const NUMERIC_SUFFIX: Record<NumericComparison, string> = {
  gt: "GreaterThan",
  ge: "GreaterThanOrEqualTo",
  lt: "LessThan",
  le: "LessThanOrEqualTo",
};

export const FUNCTION_NAME: Record<AssertionKind, string> = {
  always: "assertAlways",
  alwaysOrUnreachable: "assertAlwaysOrUnreachable",
  sometimes: "assertSometimes",
  reachable: "assertReachable",
  unreachable: "assertUnreachable",
  numericAlways: "assertAlways",
  numericSometimes: "assertSometimes",
  sometimesAll: "assertSometimesAll",
  sometimesEach: "assertSometimesEach",
};

/** The `@moonpool/core` function name for a kind (numeric kinds need their comparison). */
export function assertionFunctionName(kind: AssertionKind, comparison: NumericComparison | null): string {
  const base = FUNCTION_NAME[kind];
  return comparison !== null && (kind === "numericAlways" || kind === "numericSometimes")
    ? base + NUMERIC_SUFFIX[comparison]
    : base;
}

export function formatDetails(details: AssertionDetails | null): string {
  if (details === null) return "";
  const parts: string[] = [];
  for (const key of Object.keys(details)) parts.push(`${key}=${String(details[key])}`);
  return parts.length === 0 ? "" : ` {${parts.join(", ")}}`;
}

export function compare(comparison: NumericComparison, left: number, right: number): boolean {
  switch (comparison) {
    case "gt":
      return left > right;
    case "ge":
      return left >= right;
    case "lt":
      return left < right;
    case "le":
      return left <= right;
  }
}

export function positiveInteger(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`AssertionTable option ${what} must be a positive integer, got ${String(value)}`);
  }
  return value;
}
