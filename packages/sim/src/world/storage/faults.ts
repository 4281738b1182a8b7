/**
 * The storage fault decisions. Each draws from the `sim` stream only when its
 * probability is above zero, so the baseline (every fault off) makes no fault draw at all and a
 * family that is off can never fire.
 */
import type { RandomStream } from "../../engine/rng.ts";
import type { StorageConfig } from "./config.ts";
import type { CrashFate } from "./file.ts";
import { SECTOR_SIZE_BYTES, sectorOf } from "./sectors.ts";

/**
 * `kind` of every storage `sim_fault` event. Every event has `ip` (the disk's owner); file events
 * also `path` and `fileId`; ranges are `offsetBytes`/`lengthBytes` of the bytes that may be damaged.
 */
export const STORAGE_FAULT_KINDS = Object.freeze({
  /**
   * `{ ip, path, fileId, readKind, offsetBytes, lengthBytes }`: `corruption` (a sector went bad when
   * read and stays bad until rewritten) or `misdirected` (this one read returned the bytes at
   * `mistakenOffsetBytes`; the disk is unchanged).
   */
  readFault: "storage_read_fault",
  /**
   * `{ ip, path, fileId, writeKind, offsetBytes, lengthBytes }`: `phantom` (the write never landed),
   * `misdirected` (it landed at `mistakenOffsetBytes`; both ranges are damaged) or `corruption`
   * (one sector of it is bad).
   */
  writeFault: "storage_write_fault",
  /** `{ ip, path, fileId }`: a sync failed with EIO; nothing it should have covered is durable yet. */
  syncFault: "storage_sync_fault",
  /** `{ ip, files, unsyncedWrites, lostWrites, tornWrites }`: the disk lost power with its owner. */
  crash: "storage_crash",
  /** `{ ip, path, fileId, offsetBytes, lengthBytes }`: an unsynced write was lost by a crash. */
  lostWrite: "storage_lost_write",
  /** `{ ip, path, fileId, offsetBytes, lengthBytes }`: an unsynced write was torn by a crash: this sector is bad. */
  tornWrite: "storage_torn_write",
  /**
   * `{ ip, path, entries }`: a crash lost the unsynced changes to the directory at `path` of the
   * simulated `node:fs` (creates, renames, unlinks since its last `fsync`); it lists `entries` names again.
   */
  lostDirectoryUpdate: "storage_lost_dir_update",
  /** `{ ip, files }`: every file of the IP was deleted. */
  wipe: "storage_wipe",
  /** `{ ip, durationMs }`: the disk stalls; operations issued meanwhile wait for the end. */
  stall: "storage_stall",
  /** `{ ip, durationMs, iopsMultiplier, bandwidthMultiplier }`: the disk runs slower for a while. */
  throttle: "storage_throttle",
});

export type WriteFate = "normal" | "phantom" | "misdirected";

/** Phantom is checked first; misdirection only for writes that are not phantom (a write that never lands cannot land elsewhere). */
export function decideWriteFate(config: StorageConfig, sim: RandomStream): WriteFate {
  if (config.phantomWriteProbability > 0 && sim.ratio() < config.phantomWriteProbability) return "phantom";
  if (config.misdirectedWriteProbability > 0 && sim.ratio() < config.misdirectedWriteProbability) return "misdirected";
  return "normal";
}

/** Whether this read returns bytes from the wrong place. */
export function decideMisdirectedRead(config: StorageConfig, sim: RandomStream): boolean {
  return config.misdirectedReadProbability > 0 && sim.ratio() < config.misdirectedReadProbability;
}

export function decideSyncFailure(config: StorageConfig, sim: RandomStream): boolean {
  return config.syncFailureProbability > 0 && sim.ratio() < config.syncFailureProbability;
}

/** Sectors of `[first, end)` that go bad, one draw per sector with probability `p` (none when `p` is 0). */
export function pickFaultedSectors(p: number, first: number, end: number, sim: RandomStream): number[] {
  if (p <= 0) return [];
  const out: number[] = [];
  for (let sector = first; sector < end; sector++) if (sim.ratio() < p) out.push(sector);
  return out;
}

/** The fate of each unsynced write at a crash, oldest first. */
export function decideCrashFates(config: StorageConfig, writeCount: number, sim: RandomStream): CrashFate[] {
  const fates: CrashFate[] = [];
  for (let i = 0; i < writeCount; i++) {
    if (config.crashFaultProbability > 0 && sim.ratio() < config.crashFaultProbability) {
      fates.push(sim.ratio() < config.crashLostWriteRatio ? "lost" : "torn");
    } else fates.push("kept");
  }
  return fates;
}

/**
 * Where a misdirected access of `[offset, offset + length)` goes instead: the same place within a
 * sector, a whole non-zero number of sectors away, at a sector uniformly chosen among the file's
 * other sectors (`fileSizeBytes` counts the access). In a one-sector file the only other place is
 * the sector after the end, outside the file.
 */
export function misdirectedOffset(offsetBytes: number, fileSizeBytes: number, sim: RandomStream): number {
  const sectors = Math.max(1, Math.ceil(fileSizeBytes / SECTOR_SIZE_BYTES));
  const first = sectorOf(offsetBytes);
  if (sectors === 1 && first === 0) return offsetBytes + SECTOR_SIZE_BYTES;
  let target = sim.rangeInt(0, sectors - 1);
  if (target >= first) target++;
  return offsetBytes + (target - first) * SECTOR_SIZE_BYTES;
}
