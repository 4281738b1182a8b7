/**
 * Cluster locality and distance latency (`.linkLatency`).
 *
 * `.cluster(config, factory)` registers one process group laid out as datacenters × zones per
 * datacenter × machines per zone × processes per machine; each count is fixed or `[min, max]`
 * drawn per seed (sim stream, in that order). Processes are assigned contiguously, so consecutive
 * processes share a machine. Ids are 1-based and globally unique: `dc1`, `dc1-z2`, `dc1-z2-m3`.
 *
 * `.linkLatency(...)` adds a latency to every connect and chunk between two processes of the
 * cluster that grows with their distance: same machine < same zone < same datacenter < across
 * datacenters. Pairs where either side has no locality (workloads, other groups) get none.
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { RandomStream } from "../engine/rng.ts";
import type { ProcessCount } from "./user-interfaces.ts";

export type DomainLevel = "datacenter" | "zone" | "machine";
export const DOMAIN_LEVELS: readonly DomainLevel[] = ["datacenter", "zone", "machine"];

export interface LocalityConfig {
  readonly datacenters: ProcessCount;
  readonly zonesPerDatacenter: ProcessCount;
  readonly machinesPerZone: ProcessCount;
  readonly processesPerMachine: ProcessCount;
}

/** Where one process runs. */
export interface Locality {
  readonly datacenter: string;
  readonly zone: string;
  readonly machine: string;
}

export function domainId(locality: Locality, level: DomainLevel): string {
  return level === "datacenter" ? locality.datacenter : level === "zone" ? locality.zone : locality.machine;
}

const DIMENSIONS = ["datacenters", "zonesPerDatacenter", "machinesPerZone", "processesPerMachine"] as const;

function bounds(count: ProcessCount): [number, number] {
  return typeof count === "number" ? [count, count] : [count[0], count[1]];
}

/** Checks `config` and returns the smallest and largest process count it can draw. */
export function localityCountRange(config: LocalityConfig, maxProcesses: number): [number, number] {
  if (config === null || typeof config !== "object") {
    throw new InvalidConfiguration(
      "cluster(config, factory): config must be { datacenters, zonesPerDatacenter, machinesPerZone, processesPerMachine }, each a count or [min, max]",
    );
  }
  let min = 1;
  let max = 1;
  for (const dim of DIMENSIONS) {
    const count = config[dim];
    const ok =
      (typeof count === "number" && Number.isSafeInteger(count) && count >= 1) ||
      (Array.isArray(count) &&
        count.length === 2 &&
        count.every((n) => Number.isSafeInteger(n) && n >= 1) &&
        count[0]! <= count[1]!);
    if (!ok)
      throw new InvalidConfiguration(
        `cluster(config): ${dim} must be a positive integer or [min, max] with 1 <= min <= max, got ${JSON.stringify(count)}`,
      );
    const [lo, hi] = bounds(count);
    min *= lo;
    max *= hi;
  }
  if (max > maxProcesses) {
    throw new InvalidConfiguration(
      `cluster(config): up to ${max} processes (the product of the four counts' maxima), but a group holds at most ${maxProcesses}; lower a count`,
    );
  }
  return [min, max];
}

/** Draws the cluster's shape for one seed (sim stream, one draw per ranged dimension) and lays the processes out. */
export function resolveLocalities(config: LocalityConfig, sim: RandomStream): Locality[] {
  const [dcs, zones, machines, perMachine] = DIMENSIONS.map((dim) => {
    const [lo, hi] = bounds(config[dim]);
    return lo === hi ? lo : sim.rangeInt(lo, hi + 1);
  }) as [number, number, number, number];
  const out: Locality[] = [];
  for (let d = 1; d <= dcs; d++) {
    for (let z = 1; z <= zones; z++) {
      for (let m = 1; m <= machines; m++) {
        const locality: Locality = Object.freeze({
          datacenter: `dc${d}`,
          zone: `dc${d}-z${z}`,
          machine: `dc${d}-z${z}-m${m}`,
        });
        for (let p = 0; p < perMachine; p++) out.push(locality);
      }
    }
  }
  return out;
}

/** Compares domain ids by their numbers (`dc2` before `dc10`), so sorted lists read naturally. */
export function compareDomainIds(a: string, b: string): number {
  const na = a.match(/\d+/g)?.map(Number) ?? [];
  const nb = b.match(/\d+/g)?.map(Number) ?? [];
  for (let i = 0; i < Math.min(na.length, nb.length); i++) if (na[i] !== nb[i]) return na[i]! - nb[i]!;
  return na.length - nb.length || (a < b ? -1 : a > b ? 1 : 0);
}

// --- link latency -----------------------------------------------------------------------------

/** A latency range in milliseconds `[minMs, maxMs]` (drawn uniformly per message, µs resolution). */
export type RangeMs = readonly [minMs: number, maxMs: number];

/** Latency between two cluster processes by distance; each range must not be below the nearer one's. */
export interface LinkLatencyConfig {
  readonly sameMachineMs: RangeMs;
  readonly sameZoneMs: RangeMs;
  readonly sameDatacenterMs: RangeMs;
  readonly crossDatacenterMs: RangeMs;
}

export type LinkDistance = "sameMachine" | "sameZone" | "sameDatacenter" | "crossDatacenter";
const DISTANCES: readonly LinkDistance[] = ["sameMachine", "sameZone", "sameDatacenter", "crossDatacenter"];

/**
 * `.linkLatency()` without arguments: loopback ~10 µs, a rack ~0.1 ms, a datacenter ~0.5 ms,
 * another region tens of ms. Non-overlapping, so every message respects the distance order.
 */
export const DEFAULT_LINK_LATENCY: LinkLatencyConfig = Object.freeze({
  sameMachineMs: [0.005, 0.02] as const,
  sameZoneMs: [0.05, 0.2] as const,
  sameDatacenterMs: [0.2, 1] as const,
  crossDatacenterMs: [10, 60] as const,
});

export function checkLinkLatency(config: LinkLatencyConfig): LinkLatencyConfig {
  if (config === null || typeof config !== "object") {
    throw new InvalidConfiguration(
      "linkLatency(config): config must be { sameMachineMs, sameZoneMs, sameDatacenterMs, crossDatacenterMs }, each [minMs, maxMs]",
    );
  }
  let previous: RangeMs | null = null;
  let previousName = "";
  for (const distance of DISTANCES) {
    const name = `${distance}Ms`;
    const range = config[name as keyof LinkLatencyConfig];
    if (
      !Array.isArray(range) ||
      range.length !== 2 ||
      !range.every((n) => typeof n === "number" && Number.isFinite(n) && n >= 0) ||
      range[0] > range[1]
    ) {
      throw new InvalidConfiguration(
        `linkLatency(config): ${name} must be [minMs, maxMs] with 0 <= minMs <= maxMs, got ${JSON.stringify(range)}`,
      );
    }
    if (previous !== null && (range[0] < previous[0] || range[1] < previous[1])) {
      throw new InvalidConfiguration(
        `linkLatency(config): latency must grow with distance, but ${name} ${JSON.stringify(range)} is below ${previousName} ${JSON.stringify(previous)}; make each range's min and max at least the nearer one's`,
      );
    }
    previous = range;
    previousName = name;
  }
  return Object.freeze({ ...config });
}

export function linkDistance(a: Locality, b: Locality): LinkDistance {
  if (a.machine === b.machine) return "sameMachine";
  if (a.zone === b.zone) return "sameZone";
  if (a.datacenter === b.datacenter) return "sameDatacenter";
  return "crossDatacenter";
}

/** The network's link-latency hook for one seed: a draw per message between two located IPs. */
export function linkLatencySampler(
  config: LinkLatencyConfig,
  localityOf: (ip: string) => Locality | undefined,
  sim: RandomStream,
): (fromIp: string, toIp: string) => number {
  const rangesUs = {} as Record<LinkDistance, [number, number]>;
  for (const distance of DISTANCES) {
    const [minMs, maxMs] = config[`${distance}Ms` as keyof LinkLatencyConfig];
    rangesUs[distance] = [Math.round(minMs * 1000), Math.round(maxMs * 1000)];
  }
  return (fromIp, toIp) => {
    const a = localityOf(fromIp);
    const b = localityOf(toIp);
    if (a === undefined || b === undefined) return 0;
    const [minUs, maxUs] = rangesUs[linkDistance(a, b)];
    return maxUs > minUs ? sim.rangeInt(minUs, maxUs) : minUs;
  };
}
