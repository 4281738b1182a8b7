/**
 * The storage configuration of a world: disk performance and the probability of
 * every fault family. The defaults (`DEFAULT_STORAGE_CONFIG`) are realistic
 * SSD-like timing and every fault off. `chaos/storage-config.ts` derives the per-seed random and
 * swarm configurations from these.
 */
import { InvalidConfiguration } from "@moonpool/core";
import { uniform, type LatencyDistribution, type RangeUs } from "../network/config.ts";

/** Latency shapes are the network's: uniform, exponential, bimodal. */
export type { LatencyDistribution };

function uniformUs(minUs: number, maxUs: number): LatencyDistribution {
  return Object.freeze(uniform([minUs, maxUs]));
}

export interface StorageConfig {
  /** Operations per second of one disk (one disk per IP): each read or write costs `1e6 / iops` µs. */
  readonly iops: number;
  /** Bytes per second of one disk: each read or write costs `sizeBytes * 1e6 / bandwidth` µs. */
  readonly bandwidthBytesPerSec: number;
  /** Base latency of a read, before the IOPS and bandwidth terms. */
  readonly readLatencyUs: LatencyDistribution;
  /** Base latency of a write (and of `setLength`), before the IOPS and bandwidth terms. */
  readonly writeLatencyUs: LatencyDistribution;
  /** Latency of a `sync()` (no IOPS or bandwidth term). */
  readonly syncLatencyUs: LatencyDistribution;
  /** Per sector read: the sector becomes faulted (one flipped bit until rewritten). */
  readonly readFaultProbability: number;
  /** Per sector written: the sector becomes faulted right after the write. */
  readonly writeFaultProbability: number;
  /** Per write: reported done, never applied (checked first). */
  readonly phantomWriteProbability: number;
  /** Per write: the bytes land a whole number of sectors away from where they were meant to go. */
  readonly misdirectedWriteProbability: number;
  /** Per read: the bytes returned come from a whole number of sectors away (the disk is not changed). */
  readonly misdirectedReadProbability: number;
  /** Per sync: fails with `EIO`, the unsynced writes stay unsynced. */
  readonly syncFailureProbability: number;
  /** Per unsynced write at a crash: the write is damaged (lost or torn). */
  readonly crashFaultProbability: number;
  /** Of the damaged writes at a crash, the share lost entirely; the others are torn (one sector faulted). */
  readonly crashLostWriteRatio: number;
  /** Per read, write or sync issued while the disk is calm: a stall episode starts. */
  readonly stallProbability: number;
  /** How long a stall lasts: operations issued during it wait for its end. */
  readonly stallDurationUs: number;
  /** Per read, write or sync issued while the disk is calm (and no stall started): a throttle episode starts. */
  readonly throttleProbability: number;
  /** How long a throttle lasts. */
  readonly throttleDurationUs: number;
  /** IOPS are divided by this during a throttle episode (1 = no effect). */
  readonly throttleIopsMultiplier: number;
  /** Bandwidth is divided by this during a throttle episode (1 = no effect). */
  readonly throttleBandwidthMultiplier: number;
}

/** Default IOPS of a disk: 25,000. */
export const DEFAULT_STORAGE_IOPS = 25_000;
/** Default bandwidth of a disk: 150 MB/s. */
export const DEFAULT_STORAGE_BANDWIDTH_BYTES_PER_SEC = 150_000_000;
/** Default base read latency: uniform 50–200 µs. */
export const DEFAULT_READ_LATENCY_US = uniformUs(50, 200);
/** Default base write latency: uniform 100–500 µs. */
export const DEFAULT_WRITE_LATENCY_US = uniformUs(100, 500);
/** Default sync latency: uniform 1–5 ms. */
export const DEFAULT_SYNC_LATENCY_US = uniformUs(1_000, 5_000);
/**
 * Share of crash-damaged writes that are lost rather than torn (the rest tear one sector): losing
 * whole unsynced writes is the failure a missing `sync()` meets on real disks, so half of the
 * damage is that.
 */
export const DEFAULT_CRASH_LOST_WRITE_RATIO = 0.5;
/** Latency of metadata operations (`open`, `exists`, `delete`, `rename`, `list`): 1 µs. */
export const METADATA_LATENCY_US = 1;

/** The baseline: realistic timing, every fault family off (storage faults are off unless chaos asks). */
export const DEFAULT_STORAGE_CONFIG: StorageConfig = Object.freeze({
  iops: DEFAULT_STORAGE_IOPS,
  bandwidthBytesPerSec: DEFAULT_STORAGE_BANDWIDTH_BYTES_PER_SEC,
  readLatencyUs: DEFAULT_READ_LATENCY_US,
  writeLatencyUs: DEFAULT_WRITE_LATENCY_US,
  syncLatencyUs: DEFAULT_SYNC_LATENCY_US,
  readFaultProbability: 0,
  writeFaultProbability: 0,
  phantomWriteProbability: 0,
  misdirectedWriteProbability: 0,
  misdirectedReadProbability: 0,
  syncFailureProbability: 0,
  crashFaultProbability: 0,
  crashLostWriteRatio: DEFAULT_CRASH_LOST_WRITE_RATIO,
  stallProbability: 0,
  stallDurationUs: 0,
  throttleProbability: 0,
  throttleDurationUs: 0,
  throttleIopsMultiplier: 1,
  throttleBandwidthMultiplier: 1,
});

/** A fast local disk: 1M IOPS, 1 GB/s, 1 µs latencies, faults off (fast unit tests). */
export const FAST_LOCAL_STORAGE_CONFIG: StorageConfig = Object.freeze({
  ...DEFAULT_STORAGE_CONFIG,
  iops: 1_000_000,
  bandwidthBytesPerSec: 1_000_000_000,
  readLatencyUs: uniformUs(1, 1),
  writeLatencyUs: uniformUs(1, 1),
  syncLatencyUs: uniformUs(1, 1),
});

/** `config` with every fault family off (recovery mode): timing and running episodes are kept. */
export function withoutStorageFaults(config: StorageConfig): StorageConfig {
  return Object.freeze({
    ...config,
    readFaultProbability: 0,
    writeFaultProbability: 0,
    phantomWriteProbability: 0,
    misdirectedWriteProbability: 0,
    misdirectedReadProbability: 0,
    syncFailureProbability: 0,
    crashFaultProbability: 0,
    stallProbability: 0,
    throttleProbability: 0,
  });
}

const PROBABILITIES = [
  "readFaultProbability",
  "writeFaultProbability",
  "phantomWriteProbability",
  "misdirectedWriteProbability",
  "misdirectedReadProbability",
  "syncFailureProbability",
  "crashFaultProbability",
  "crashLostWriteRatio",
  "stallProbability",
  "throttleProbability",
] as const;

function isRange(range: RangeUs): boolean {
  return (
    Array.isArray(range) &&
    range.length === 2 &&
    Number.isSafeInteger(range[0]) &&
    Number.isSafeInteger(range[1]) &&
    0 <= range[0] &&
    range[0] <= range[1]
  );
}

function checkLatency(name: string, d: LatencyDistribution): void {
  const isUs = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;
  const valid =
    d !== null &&
    typeof d === "object" &&
    ((d.shape === "uniform" && isRange(d.rangeUs)) ||
      (d.shape === "exponential" && isUs(d.minUs) && isUs(d.meanUs)) ||
      (d.shape === "bimodal" &&
        isRange(d.fastUs) &&
        isRange(d.slowUs) &&
        d.slowProbability >= 0 &&
        d.slowProbability <= 1));
  if (!valid) {
    throw new InvalidConfiguration(
      `storage config ${name} must be a latency distribution in whole µs ({ shape: "uniform", rangeUs: [min, max] }, ...), got ${JSON.stringify(d)}`,
    );
  }
}

/** Throws `InvalidConfiguration` naming the first field that cannot work. */
export function validateStorageConfig(config: StorageConfig): void {
  if (!(config.iops > 0) || !Number.isFinite(config.iops))
    throw new InvalidConfiguration(`storage config iops must be > 0, got ${String(config.iops)}`);
  if (!(config.bandwidthBytesPerSec > 0) || !Number.isFinite(config.bandwidthBytesPerSec)) {
    throw new InvalidConfiguration(
      `storage config bandwidthBytesPerSec must be > 0, got ${String(config.bandwidthBytesPerSec)}`,
    );
  }
  checkLatency("readLatencyUs", config.readLatencyUs);
  checkLatency("writeLatencyUs", config.writeLatencyUs);
  checkLatency("syncLatencyUs", config.syncLatencyUs);
  for (const key of PROBABILITIES) {
    const p = config[key];
    if (typeof p !== "number" || !(p >= 0 && p <= 1))
      throw new InvalidConfiguration(`storage config ${key} must be a probability between 0 and 1, got ${String(p)}`);
  }
  for (const key of ["stallDurationUs", "throttleDurationUs"] as const) {
    const v = config[key];
    if (!Number.isSafeInteger(v) || v < 0)
      throw new InvalidConfiguration(`storage config ${key} must be a whole number of µs >= 0, got ${String(v)}`);
  }
  for (const key of ["throttleIopsMultiplier", "throttleBandwidthMultiplier"] as const) {
    const v = config[key];
    if (!(v >= 1) || !Number.isFinite(v))
      throw new InvalidConfiguration(
        `storage config ${key} must be >= 1 (a divisor of the disk's speed), got ${String(v)}`,
      );
  }
}
