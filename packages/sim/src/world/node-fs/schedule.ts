/**
 * How a simulated `node:fs` call completes. Each call is prepared when it is made (arguments read,
 * data copied) into a body and the kind of disk work it is; the synchronous form runs the body at
 * once, within the step, and the asynchronous forms run it when the disk's latency for that work
 * has passed (the storage latency model: IOPS, bandwidth, base latencies, stall and throttle
 * episodes), as an event of the calling process, so a crash drops it with the process.
 */
import { EventTag } from "../event-tag.ts";
import { STORAGE_FAULT_KINDS } from "../storage/faults.ts";
import { syncLatencyUs, transferLatencyUs } from "../storage/latency.ts";
import type { FsCaller } from "./state.ts";
import { FS_METADATA_LATENCY_US, type SimFileSystem } from "./tree.ts";

export type DiskWork = "metadata" | "read" | "write" | "sync";

/** A call ready to run: its body and what the disk does for it (for the asynchronous delay). */
export interface Prepared<T = unknown> {
  readonly work: DiskWork;
  /** Bytes read or written (for the bandwidth term). */
  readonly bytes: number;
  readonly run: () => T;
  /** The callback's arguments after the error, when they are more than the result (`read`, `write`). */
  readonly callbackArgs?: (result: T) => unknown[];
}

export function prepared<T>(
  work: DiskWork,
  bytes: number,
  run: () => T,
  callbackArgs?: (result: T) => unknown[],
): Prepared {
  return { work, bytes, run, callbackArgs: callbackArgs as ((result: unknown) => unknown[]) | undefined };
}

/** The delay of `work` on `fs`'s disk issued now; advances the disk's stall and throttle episodes. */
export function delayUs(fs: SimFileSystem, work: DiskWork, bytes: number): number {
  if (work === "metadata") return FS_METADATA_LATENCY_US;
  const world = fs.storage.world;
  const disk = fs.disk;
  const config = disk.config;
  const nowUs = world.engine.nowUs;
  const sim = world.engine.streams.sim;
  const started = disk.episodes.advance(nowUs, config, sim);
  if (started === "stall")
    world.recordFault(STORAGE_FAULT_KINDS.stall, { ip: disk.ip, durationMs: config.stallDurationUs / 1000 });
  else if (started === "throttle") {
    world.recordFault(STORAGE_FAULT_KINDS.throttle, {
      ip: disk.ip,
      durationMs: config.throttleDurationUs / 1000,
      iopsMultiplier: config.throttleIopsMultiplier,
      bandwidthMultiplier: config.throttleBandwidthMultiplier,
    });
  }
  if (work === "sync") return syncLatencyUs(nowUs, config, disk.episodes, sim);
  const base = work === "read" ? config.readLatencyUs : config.writeLatencyUs;
  return transferLatencyUs(base, bytes, nowUs, config, disk.episodes, sim);
}

interface Pending {
  readonly caller: FsCaller;
  readonly call: Prepared;
  readonly done: (error: unknown, result: unknown) => void;
}

function complete(pending: Pending): void {
  if (!pending.caller.process.alive) return;
  let result: unknown;
  try {
    result = pending.call.run();
  } catch (error) {
    pending.done(error, undefined);
    return;
  }
  pending.done(null, result);
}

/** Runs `call` after its disk delay, as an event of the calling process; `done` gets the outcome. */
export function later(caller: FsCaller, call: Prepared, done: (error: unknown, result: unknown) => void): void {
  const delay = delayUs(caller.fs, call.work, call.bytes);
  const world = caller.fs.storage.world;
  world.engine.schedule(
    delay,
    complete,
    { caller, call, done } satisfies Pending,
    EventTag.storage,
    caller.process.owner,
  );
}

/** The promise form: settles when the call completes. */
export function promised<T>(caller: FsCaller, call: Prepared<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    later(caller, call as Prepared, (error, result) => (error === null ? resolve(result as T) : reject(error)));
  });
}

/** The callback form: `callback(error, ...results)` from the completing event (a throw there is uncaught). */
export function calledBack(caller: FsCaller, call: Prepared, callback: (...args: unknown[]) => void): void {
  later(caller, call, (error, result) => {
    const args =
      error !== null ? [error] : [null, ...(call.callbackArgs?.(result) ?? (result === undefined ? [] : [result]))];
    caller.process.call(() => callback(...args), "an fs callback");
  });
}
