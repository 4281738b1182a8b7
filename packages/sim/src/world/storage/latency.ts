/**
 * How long a storage operation takes (FoundationDB's formula):
 *
 *   read/write:  base sample + 1e6 / iops + sizeBytes * 1e6 / bandwidth   (µs)
 *   sync:        sync sample
 *   all three:   + what remains of a stall episode
 *
 * Stall and throttle episodes belong to a disk, i.e. to an owner IP: every file of that IP waits
 * through the same stall and runs at the same throttled speed, which is how a real machine's
 * disk trouble looks to the processes on it. The episode state machine advances when a read,
 * write or sync is issued; it draws once per issue, and only while the disk is calm and some
 * episode probability is above zero, so the baseline makes no draw for it.
 */
import type { RandomStream } from "../../engine/rng.ts";
import { sampleLatencyUs, type LatencyDistribution } from "../network/config.ts";
import type { StorageConfig } from "./config.ts";

export const US_PER_SECOND = 1_000_000;

/** The IOPS and bandwidth terms of one read or write of `sizeBytes`, in µs (not rounded). */
export function transferUs(sizeBytes: number, iops: number, bandwidthBytesPerSec: number): number {
  return US_PER_SECOND / iops + (sizeBytes * US_PER_SECOND) / bandwidthBytesPerSec;
}

export type EpisodeKind = "stall" | "throttle";

/** The stall/throttle state of one disk. */
export class DiskEpisodes {
  /** A stall runs while `nowUs < stallUntilUs`. */
  stallUntilUs = 0;
  /** A throttle runs while `nowUs < throttleUntilUs`. */
  throttleUntilUs = 0;
  /** Divisors of the running throttle, fixed when it started (a later config change does not end it). */
  throttleIopsMultiplier = 1;
  throttleBandwidthMultiplier = 1;

  /**
   * Advances the state machine for an operation issued at `nowUs`; returns the episode that
   * started, if any. At most one episode runs at a time.
   */
  advance(nowUs: number, config: StorageConfig, sim: RandomStream): EpisodeKind | null {
    const stallP = config.stallProbability;
    const throttleP = config.throttleProbability;
    if ((stallP <= 0 && throttleP <= 0) || nowUs < this.stallUntilUs || nowUs < this.throttleUntilUs) return null;
    const u = sim.ratio();
    if (u < stallP) {
      this.stallUntilUs = nowUs + config.stallDurationUs;
      return config.stallDurationUs > 0 ? "stall" : null;
    }
    if (u < stallP + throttleP) {
      this.throttleUntilUs = nowUs + config.throttleDurationUs;
      this.throttleIopsMultiplier = config.throttleIopsMultiplier;
      this.throttleBandwidthMultiplier = config.throttleBandwidthMultiplier;
      return config.throttleDurationUs > 0 ? "throttle" : null;
    }
    return null;
  }

  /** What is left of the running stall at `nowUs` (0 when calm). */
  stallRemainingUs(nowUs: number): number {
    return nowUs < this.stallUntilUs ? this.stallUntilUs - nowUs : 0;
  }

  throttled(nowUs: number): boolean {
    return nowUs < this.throttleUntilUs;
  }
}

/** Latency of a read or write of `sizeBytes` issued at `nowUs` (after `advance`). */
export function transferLatencyUs(
  base: LatencyDistribution,
  sizeBytes: number,
  nowUs: number,
  config: StorageConfig,
  episodes: DiskEpisodes,
  sim: RandomStream,
): number {
  const throttled = episodes.throttled(nowUs);
  const iops = throttled ? config.iops / episodes.throttleIopsMultiplier : config.iops;
  const bandwidth = throttled
    ? config.bandwidthBytesPerSec / episodes.throttleBandwidthMultiplier
    : config.bandwidthBytesPerSec;
  return (
    sampleLatencyUs(base, sim) + Math.round(transferUs(sizeBytes, iops, bandwidth)) + episodes.stallRemainingUs(nowUs)
  );
}

/** Latency of a sync issued at `nowUs` (after `advance`): no IOPS or bandwidth term. */
export function syncLatencyUs(nowUs: number, config: StorageConfig, episodes: DiskEpisodes, sim: RandomStream): number {
  return sampleLatencyUs(config.syncLatencyUs, sim) + episodes.stallRemainingUs(nowUs);
}
