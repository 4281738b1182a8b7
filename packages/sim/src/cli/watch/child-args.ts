/**
 * The command line of one watched run: the options the user gave `moonpool run --watch` (not
 * their defaults, nor `--watch`), rebuilt from what commander parsed, so every spelling (`-n 5`,
 * `--iterations=5`) comes out the same.
 */
import type { Command } from "commander";

/** What chooses the seeds: a rerun of the failed seeds (`--seeds-from`) replaces all of it. */
export const SEED_CHOOSING_OPTIONS: ReadonlySet<string> = new Set([
  "seed",
  "seeds",
  "iterations",
  "untilStable",
  "budget",
  "quick",
  "lastFailed",
  "seedsFrom",
]);

/** The options given on the command line, as arguments, without those whose attribute name is in `omit`. */
export function givenOptions(command: Command, omit: ReadonlySet<string>): string[] {
  const args: string[] = [];
  const values = command.opts();
  for (const option of command.options) {
    const key = option.attributeName();
    if (omit.has(key) || command.getOptionValueSource(key) !== "cli") continue;
    const flag = option.long ?? option.short!;
    const value = values[key];
    if (option.negate || value === true) args.push(flag);
    else if (Array.isArray(value)) for (const item of value) args.push(flag, String(item));
    else args.push(flag, String(value));
  }
  return args;
}
