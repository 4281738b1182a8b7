/** Parsers for flag values; each error names the flag and shows the expected form. */
import { TRACE_LEVEL_ORDER, type TraceLevel } from "@moonpool/core";
import { parseRecipe, RecipeParseError } from "../engine/recipe.ts";
import { MAX_SEED } from "../engine/rng.ts";
import { REPORTER_NAMES, type ReporterName } from "./define.ts";
import { UsageError } from "./errors.ts";

export function parseSeed(text: string, flag: string): number {
  const n = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n > MAX_SEED) {
    throw new UsageError(`${flag} '${text}': a seed is a decimal integer from 0 to ${MAX_SEED}`);
  }
  return n;
}

export function parseSeedList(text: string): number[] {
  // Also takes a list as JSON or a report prints it: `[1, 2, 3]`, `1 2 3`.
  const parts = text
    .replace(/^\s*\[|\]\s*$/g, "")
    .split(/[,\s]+/)
    .filter((p) => p.length > 0);
  if (parts.length === 0)
    throw new UsageError(`--seeds '${text}': expected a comma-separated list of seeds, e.g. --seeds 1,2,3`);
  // A seed may repeat: running it twice in one campaign is how to see that it does not depend on
  // the seeds before it (each run gets its own position #N).
  return parts.map((p) => parseSeed(p, "--seeds"));
}

export function parsePositiveInteger(text: string, flag: string, example: string): number {
  const n = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`${flag} '${text}': expected a positive integer, e.g. ${flag} ${example}`);
  return n;
}

export function parseUntilStable(text: string): { quietSeeds: number; maxSeeds: number; minSeeds?: number } {
  const match = /^\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*(\d+)\s*)?$/.exec(text);
  const form =
    "the form is --until-stable QUIET,MAX: stop after QUIET consecutive seeds reach no new sometimes-assertion, at most MAX seeds, at least MIN if given (e.g. --until-stable 10,1000 or 10,1000,500)";
  if (match === null) throw new UsageError(`--until-stable '${text}': ${form}`);
  const quietSeeds = Number(match[1]);
  const maxSeeds = Number(match[2]);
  if (quietSeeds < 1 || maxSeeds < 1 || !Number.isSafeInteger(quietSeeds) || !Number.isSafeInteger(maxSeeds))
    throw new UsageError(`--until-stable '${text}': both numbers must be positive; ${form}`);
  if (match[3] === undefined) return { quietSeeds, maxSeeds };
  const minSeeds = Number(match[3]);
  if (!Number.isSafeInteger(minSeeds) || minSeeds > maxSeeds)
    throw new UsageError(`--until-stable '${text}': MIN must be at most MAX; ${form}`);
  return { quietSeeds, maxSeeds, minSeeds };
}

const DURATION_UNITS_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `500ms`, `30s`, `5m`, `1h`. A bare number is refused: `--timeout 30` could mean 30 ms or 30 s. */
export function parseDurationMs(text: string, flag: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (match !== null && match[2] === undefined) {
    throw new UsageError(`${flag} '${text}': a duration needs a unit (ms, s, m or h), e.g. ${flag} ${text.trim()}s`);
  }
  const ms = match === null ? Number.NaN : Number(match[1]) * DURATION_UNITS_MS[match[2]!]!;
  if (!(ms > 0) || !Number.isFinite(ms))
    throw new UsageError(`${flag} '${text}': expected a duration such as 500ms, 30s, 5m or 1h`);
  return ms;
}

/** `--reporter` may repeat and may hold a comma-separated list. */
export function parseReporters(values: readonly string[]): ReporterName[] {
  const names = values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  for (const name of names) {
    if (!(REPORTER_NAMES as readonly string[]).includes(name))
      throw new UsageError(
        `--reporter '${name}': known reporters are ${REPORTER_NAMES.join(", ")} (repeat the flag or separate with commas for several)`,
      );
  }
  return [...new Set(names)] as ReporterName[];
}

export function parseTraceLevel(text: string): TraceLevel {
  if (!(text in TRACE_LEVEL_ORDER))
    throw new UsageError(`--level '${text}': expected one of ${Object.keys(TRACE_LEVEL_ORDER).join(", ")}`);
  return text as TraceLevel;
}

/**
 * The failing timeline a command works on (`shrink`, `explain`): the simulation, `--seed S` and
 * an optional `--recipe R`, each checked with a message that says what to give.
 */
export function failingTimelineFlags(
  command: string,
  simulationArg: string | undefined,
  flags: { readonly seed?: string; readonly recipe?: string },
): { simulation: string; seed: number; recipe: string } {
  if (simulationArg === undefined)
    throw new UsageError(
      `${command} needs a simulation name and --seed S (e.g. moonpool ${command} leader-election-vote-twice --seed 42)`,
    );
  if (flags.seed === undefined)
    throw new UsageError(`${command} ${simulationArg}: --seed S is required (a failing seed printed by moonpool run)`);
  const seed = parseSeed(flags.seed, "--seed");
  const recipe = flags.recipe ?? "";
  try {
    parseRecipe(recipe);
  } catch (error) {
    if (error instanceof RecipeParseError) throw new UsageError(`--recipe: ${error.message}`);
    throw error;
  }
  return { simulation: simulationArg, seed, recipe };
}
