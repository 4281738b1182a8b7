/**
 * `--hang-timeout <duration>` (and `--timeout`, its older name: once a wall-clock limit of the
 * whole seed, now the same hang limit), and which hang limit applies: the flag, else the config
 * file (`hangTimeoutMs`), else 60 s.
 */
import { DEFAULT_HANG_TIMEOUT_MS } from "../runner/pool/progress-watchdog.ts";
import { UsageError } from "./errors.ts";
import { parseDurationMs } from "./option-values.ts";

export interface HangTimeoutFlags {
  readonly hangTimeout?: string;
  readonly timeout?: string;
}

/** The limit the flags set, in ms, or null when neither was given. */
export function hangTimeoutFlag(flags: HangTimeoutFlags): number | null {
  if (flags.hangTimeout !== undefined && flags.timeout !== undefined)
    throw new UsageError("--timeout is the older name of --hang-timeout: pass one of them");
  if (flags.hangTimeout !== undefined) return parseDurationMs(flags.hangTimeout, "--hang-timeout");
  if (flags.timeout !== undefined) return parseDurationMs(flags.timeout, "--timeout");
  return null;
}

/** The hang limit: flag, config file, default (in that order). */
export function hangLimitMs(flagMs: number | null, fileMs: number | null): number {
  return flagMs ?? fileMs ?? DEFAULT_HANG_TIMEOUT_MS;
}
