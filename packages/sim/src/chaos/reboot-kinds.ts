/**
 * The vocabulary of process reboots shared by the attrition draw (chaos/) and the process
 * lifecycle that carries reboots out (runner/process-lifecycle.ts): the kinds, delay ranges and their
 * defaults, the trace events, the built-in assertions and the per-seed counts.
 */
import type { RandomStream } from "../engine/rng.ts";

/** How a process goes down. */
export type RebootKind = "graceful" | "crash" | "crashAndWipe";
export const REBOOT_KINDS: readonly RebootKind[] = ["graceful", "crash", "crashAndWipe"];

/** A delay in whole simulated milliseconds: fixed, or `[minMs, maxMs]` (both inclusive) drawn per reboot from the sim stream. */
export type DelayRangeMs = number | readonly [minMs: number, maxMs: number];

/** Time from the kill to the restart when none is given: 1000..10000 ms. */
export const DEFAULT_RECOVERY_DELAY_MS: readonly [number, number] = Object.freeze([1_000, 10_000] as const);
/** Time from the shutdown signal to the kill when none is given: 2000..5000 ms. */
export const DEFAULT_GRACE_PERIOD_MS: readonly [number, number] = Object.freeze([2_000, 5_000] as const);

/** The `sim_fault` kinds of the process lifecycle (storage adds `storage_crash` / `storage_wipe`). */
export const PROCESS_FAULT_KINDS = Object.freeze({
  /** `{ ip, gracePeriodMs, recoveryDelayMs, cause }`: `ctx.shutdown` aborted; killed after `gracePeriodMs`. */
  gracefulShutdown: "process_graceful_shutdown",
  /** `{ ip, running, cause }`: the grace period is over; `running` = it had not exited (then its storage crashed). */
  forceKill: "process_force_kill",
  /** `{ ip, wipe, recoveryDelayMs, cause }`: killed at once, storage crashed (and wiped if `wipe`). */
  crash: "process_crash",
  /** `{ ip, cause }`: a fresh instance boots on the same IP. */
  restart: "process_restart",
});

/** The built-in assertions of the lifecycle (they appear in reports). */
export const REBOOT_ASSERTIONS = Object.freeze({
  gracefulPath: "reboot: graceful path",
  /** Crash and crash-and-wipe. */
  crashPath: "reboot: crash path",
  wipePath: "reboot: crash and wipe path",
  /** The grace period ran out with the process still running. */
  forceKilled: "reboot: force kill after grace period",
  /** The process had exited by the end of its grace period. */
  exitedWithinGrace: "reboot: exited within grace period",
  restarted: "process_manager: process restarted",
  /** Numeric always: dead processes never outnumber processes. */
  deadCountBound: "dead_count <= process_count",
});

/** What caused a reboot (a field of its events). */
export type RebootCause = "injector" | "attrition";

/** What happened to the processes of one seed (in `SeedResult.chaos.reboots`). */
export interface RebootStats {
  graceful: number;
  crash: number;
  crashAndWipe: number;
  /** Graceful reboots whose grace period ran out with the process still running. */
  forceKills: number;
  /** Graceful reboots whose process had exited by the end of the grace period. */
  cleanExits: number;
  restarts: number;
  /** Reboots of a process that was already dead (ignored). */
  ignored: number;
}

export function emptyRebootStats(): RebootStats {
  return { graceful: 0, crash: 0, crashAndWipe: 0, forceKills: 0, cleanExits: 0, restarts: 0, ignored: 0 };
}

/** Why `range` is not a valid delay (`what` names it), or null. */
export function delayRangeError(range: unknown, what: string): string | null {
  const ok = (n: unknown): boolean => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  if (ok(range)) return null;
  if (Array.isArray(range) && range.length === 2 && ok(range[0]) && ok(range[1]) && range[0] <= range[1]) return null;
  return `${what} must be a whole number of milliseconds >= 0 or [minMs, maxMs] with 0 <= minMs <= maxMs, got ${JSON.stringify(range) ?? String(range)}`;
}

/** `range` as `[min, max]` (call `delayRangeError` first). */
export function normalizeDelayRange(range: DelayRangeMs): readonly [number, number] {
  return typeof range === "number"
    ? Object.freeze([range, range] as const)
    : Object.freeze([range[0], range[1]] as const);
}

/** One delay from `[min, max]` (inclusive); no draw when the range is a single value. */
export function drawDelayMs(sim: RandomStream, [min, max]: readonly [number, number]): number {
  return min === max ? min : sim.rangeInt(min, max + 1);
}

export function isRebootKind(kind: unknown): kind is RebootKind {
  return REBOOT_KINDS.includes(kind as RebootKind);
}
