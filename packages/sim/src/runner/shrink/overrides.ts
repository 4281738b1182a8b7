/**
 * Timeline overrides: how a shrunk run departs from its seed's own configuration, as data and as
 * a compact text that `moonpool replay --overrides` and `replayTimeline(seed, recipe, overrides)`
 * accept. Text: comma-separated `key=value` items, e.g.
 * `injector=off,attrition=off,window=750,net.off=clog+partition,net.rate=0.5,size.polls=12`.
 *
 * - `net.off=F+G` / `disk.off=F+G` (or `all`): network / storage fault families switched off after
 *   the seed drew its configuration, so the seed's other configuration draws are unchanged;
 * - `net.rate=R` / `disk.rate=R` (0 < R < 1): every fault probability of that surface times R;
 * - `window=MS`: a shorter chaos window (only below the simulation's own);
 * - `injector=off`: no fault injector; `attrition=off`: no built-in reboots;
 * - `procs.GROUP=N`: at most N processes in a group whose size is a `[min, max]` range;
 * - `size.NAME=N`: what `ctx.size(NAME, n)` returns instead of a larger `n` (a workload's size);
 * - `clock.off=F+G` (or `all`): clock fault families (offset, rate, step) switched off after the draws;
 * - `stop=failure`: the run ends at its first failure (processes killed, no checks), so nothing
 *   after the violation counts;
 * - `faults.skip=3+7-9`: fault occurrences left out, by ordinal (0-based, in the order the run
 *   injects them, skipped ones included: `sim_fault_skipped` events mark them). Each occurrence
 *   still makes its draws, so the run departs from the seed's only where a skipped fault acted.
 *   Clock drift and skew, storage crashes, lost and torn writes, stalls and throttles are states
 *   or consequences of another fault and cannot be skipped one by one (switch the family off).
 * - `restart.min=4+9`: the reboots of these fault ordinals (a crash or a graceful shutdown, numbered
 *   as in `faults.skip`) restart their process after the shortest recovery delay of their range
 *   instead of the drawn one, which is still drawn: the run departs from the seed's at that restart.
 */
import { InvalidConfiguration } from "@moonpool/core";
import { SWARM_NETWORK_FAMILIES, SWARM_NETWORK_FAMILY_OFF } from "../../chaos/network-chaos.ts";
import { STORAGE_FAMILY_PROBABILITY, SWARM_STORAGE_FAMILIES } from "../../chaos/storage-config.ts";
import { applyClockSwarmMask, SWARM_CLOCK_FAMILIES } from "../../chaos/clock-chaos.ts";
import type { ClockConfig } from "../../world/clock-config.ts";
import type { NetworkConfig } from "../../world/network/config.ts";
import type { StorageConfig } from "../../world/storage/config.ts";
import type { SimulationConfig } from "../config.ts";

/** Network families an override can switch off: the swarm families plus partial reads and writes. */
export const OVERRIDE_NETWORK_FAMILIES = [...SWARM_NETWORK_FAMILIES, "partialIo"] as const;
export type OverrideNetworkFamily = (typeof OVERRIDE_NETWORK_FAMILIES)[number];
export const OVERRIDE_STORAGE_FAMILIES = SWARM_STORAGE_FAMILIES;
export type OverrideStorageFamily = (typeof OVERRIDE_STORAGE_FAMILIES)[number];
export const OVERRIDE_CLOCK_FAMILIES = SWARM_CLOCK_FAMILIES;
export type OverrideClockFamily = (typeof OVERRIDE_CLOCK_FAMILIES)[number];
/** Most fault ordinals one `faults.skip` item may list (ranges counted in full). */
export const MAX_SKIPPED_FAULTS = 100_000;

export interface TimelineOverrides {
  readonly networkOff: readonly OverrideNetworkFamily[];
  /** Multiplies every network fault probability (1: unchanged). */
  readonly networkRate: number;
  readonly storageOff: readonly OverrideStorageFamily[];
  /** Multiplies every storage fault probability (1: unchanged). */
  readonly storageRate: number;
  /** A shorter chaos window in simulated ms, or null (the simulation's own). */
  readonly chaosWindowMs: number | null;
  readonly injectorOff: boolean;
  readonly attritionOff: boolean;
  /** Group name → the most processes it may have. */
  readonly processes: Readonly<Record<string, number>>;
  /** Size name (`ctx.size`) → the value it gets when the workload asks for more. */
  readonly sizes: Readonly<Record<string, number>>;
  readonly clockOff: readonly OverrideClockFamily[];
  /** Ordinals of the fault occurrences left out, ascending, no duplicates. */
  readonly skipFaults: readonly number[];
  /** The run ends at its first failure (the run phase stops there; checks do not run). */
  readonly stopAtFailure: boolean;
  /** Ordinals of the reboots whose process restarts after the shortest delay of its range, ascending. */
  readonly quickRestarts: readonly number[];
}

export const NO_OVERRIDES: TimelineOverrides = Object.freeze({
  networkOff: [],
  networkRate: 1,
  storageOff: [],
  storageRate: 1,
  chaosWindowMs: null,
  injectorOff: false,
  attritionOff: false,
  processes: {},
  sizes: {},
  clockOff: [],
  skipFaults: [],
  stopAtFailure: false,
  quickRestarts: [],
});

/** An overrides text that cannot be parsed; the message names the bad item. */
export class OverridesParseError extends InvalidConfiguration {}

const NAME = /^[A-Za-z0-9_.-]+$/;

function families<T extends string>(value: string, known: readonly T[], where: string): T[] {
  if (value === "all") return known.slice();
  const names = value.split("+").map((s) => s.trim());
  for (const name of names) {
    if (!(known as readonly string[]).includes(name)) {
      throw new OverridesParseError(`unknown family '${name}' in ${where}: one of all, ${known.join(", ")}`);
    }
  }
  return known.filter((f) => names.includes(f));
}

function rate(value: string, where: string): number {
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || !(n > 0 && n < 1))
    throw new OverridesParseError(`invalid rate '${value}' in ${where}: a number between 0 and 1 (exclusive)`);
  return n;
}

function count(value: string, where: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min)
    throw new OverridesParseError(`invalid value '${value}' in ${where}: a whole number >= ${min}`);
  return n;
}

/** `3+7-9` → [3, 7, 8, 9]: whole numbers and inclusive ranges, sorted and deduplicated. */
function ordinals(value: string, where: string): number[] {
  const out = new Set<number>();
  for (const part of value.split("+").map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    const lo = m === null ? Number.NaN : Number(m[1]);
    const hi = m?.[2] === undefined ? lo : Number(m[2]);
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi < lo) {
      throw new OverridesParseError(
        `invalid fault ordinal '${part}' in ${where}: a whole number N >= 0 or a range N-M with M >= N, joined by '+'`,
      );
    }
    if (out.size + (hi - lo + 1) > MAX_SKIPPED_FAULTS)
      throw new OverridesParseError(`too many fault ordinals in ${where}: at most ${MAX_SKIPPED_FAULTS}`);
    for (let n = lo; n <= hi; n++) out.add(n);
  }
  return [...out].sort((a, b) => a - b);
}

/** [3, 7, 8, 9] → `3+7-9`. */
function formatOrdinals(values: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < values.length; ) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j]! + 1) j++;
    parts.push(j === i ? String(values[i]) : `${values[i]}-${values[j]}`);
    i = j + 1;
  }
  return parts.join("+");
}

export function parseOverrides(text: string): TimelineOverrides {
  if (typeof text !== "string")
    throw new OverridesParseError(`overrides must be a string like "injector=off,window=750", got ${typeof text}`);
  const trimmed = text.trim();
  if (trimmed === "") return NO_OVERRIDES;
  const o = { ...NO_OVERRIDES, processes: {} as Record<string, number>, sizes: {} as Record<string, number> } as {
    -readonly [K in keyof TimelineOverrides]: TimelineOverrides[K];
  } & { processes: Record<string, number>; sizes: Record<string, number> };
  for (const raw of trimmed.split(",")) {
    const item = raw.trim();
    const where = `item "${item}" of overrides "${trimmed}"`;
    const eq = item.indexOf("=");
    if (eq < 0) throw new OverridesParseError(`missing '=' in ${where}: each item is key=value`);
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === "net.off") o.networkOff = families(value, OVERRIDE_NETWORK_FAMILIES, where);
    else if (key === "disk.off") o.storageOff = families(value, OVERRIDE_STORAGE_FAMILIES, where);
    else if (key === "clock.off") o.clockOff = families(value, OVERRIDE_CLOCK_FAMILIES, where);
    else if (key === "faults.skip") o.skipFaults = ordinals(value, where);
    else if (key === "restart.min") o.quickRestarts = ordinals(value, where);
    else if (key === "net.rate") o.networkRate = rate(value, where);
    else if (key === "disk.rate") o.storageRate = rate(value, where);
    else if (key === "window") o.chaosWindowMs = count(value, where, 1);
    else if (key === "stop") {
      if (value !== "failure")
        throw new OverridesParseError(`invalid value '${value}' in ${where}: the only value is failure`);
      o.stopAtFailure = true;
    } else if (key === "injector" || key === "attrition") {
      if (value !== "off") throw new OverridesParseError(`invalid value '${value}' in ${where}: the only value is off`);
      if (key === "injector") o.injectorOff = true;
      else o.attritionOff = true;
    } else if (key.startsWith("procs.") && NAME.test(key.slice(6))) o.processes[key.slice(6)] = count(value, where, 1);
    else if (key.startsWith("size.") && NAME.test(key.slice(5))) o.sizes[key.slice(5)] = count(value, where, 0);
    else {
      throw new OverridesParseError(
        `unknown key '${key}' in ${where}: one of net.off, net.rate, disk.off, disk.rate, window, injector, ` +
          "attrition, procs.GROUP, size.NAME, clock.off, faults.skip, restart.min, stop",
      );
    }
  }
  return Object.freeze(o);
}

function formatRate(r: number): string {
  return String(Number(r.toPrecision(6)));
}

/** The text form; `parseOverrides(formatOverrides(o))` gives `o` back. Keys in a fixed order. */
export function formatOverrides(o: TimelineOverrides): string {
  const items: string[] = [];
  if (o.injectorOff) items.push("injector=off");
  if (o.attritionOff) items.push("attrition=off");
  if (o.chaosWindowMs !== null) items.push(`window=${o.chaosWindowMs}`);
  if (o.networkOff.length > 0)
    items.push(`net.off=${o.networkOff.length === OVERRIDE_NETWORK_FAMILIES.length ? "all" : o.networkOff.join("+")}`);
  if (o.networkRate !== 1) items.push(`net.rate=${formatRate(o.networkRate)}`);
  if (o.storageOff.length > 0)
    items.push(`disk.off=${o.storageOff.length === OVERRIDE_STORAGE_FAMILIES.length ? "all" : o.storageOff.join("+")}`);
  if (o.storageRate !== 1) items.push(`disk.rate=${formatRate(o.storageRate)}`);
  for (const [group, n] of Object.entries(o.processes).sort(([a], [b]) => a.localeCompare(b)))
    items.push(`procs.${group}=${n}`);
  for (const [name, n] of Object.entries(o.sizes).sort(([a], [b]) => a.localeCompare(b)))
    items.push(`size.${name}=${n}`);
  if (o.clockOff.length > 0)
    items.push(`clock.off=${o.clockOff.length === OVERRIDE_CLOCK_FAMILIES.length ? "all" : o.clockOff.join("+")}`);
  if (o.skipFaults.length > 0) items.push(`faults.skip=${formatOrdinals(o.skipFaults)}`);
  if (o.quickRestarts.length > 0) items.push(`restart.min=${formatOrdinals(o.quickRestarts)}`);
  if (o.stopAtFailure) items.push("stop=failure");
  return items.join(",");
}

export function isEmptyOverrides(o: TimelineOverrides): boolean {
  return formatOverrides(o) === "";
}

/** The seed's drawn network configuration with the overridden families off and rates lowered. */
export function overrideNetworkConfig(config: NetworkConfig, o: TimelineOverrides): NetworkConfig {
  let out: NetworkConfig = config;
  for (const family of o.networkOff) {
    out =
      family === "partialIo"
        ? { ...out, partialWriteMaxBytes: 0, partialReadMaxBytes: 0 }
        : { ...out, ...SWARM_NETWORK_FAMILY_OFF[family] };
  }
  if (o.networkRate !== 1) {
    const r = o.networkRate;
    out = {
      ...out,
      bitFlipProbability: out.bitFlipProbability * r,
      randomCloseProbability: out.randomCloseProbability * r,
      clogProbability: out.clogProbability * r,
      partitionProbability: out.partitionProbability * r,
      buggifiedDelayProbability: out.buggifiedDelayProbability * r,
    };
  }
  return out === config ? config : Object.freeze({ ...out });
}

/** The seed's drawn storage configuration with the overridden families off and rates lowered. */
export function overrideStorageConfig(config: StorageConfig, o: TimelineOverrides): StorageConfig {
  if (o.storageOff.length === 0 && o.storageRate === 1) return config;
  const out: Record<string, unknown> = { ...config };
  for (const family of OVERRIDE_STORAGE_FAMILIES) {
    const field = STORAGE_FAMILY_PROBABILITY[family];
    out[field] = o.storageOff.includes(family) ? 0 : config[field] * o.storageRate;
  }
  return Object.freeze(out) as unknown as StorageConfig;
}

/** The seed's drawn clock configuration with the overridden families off. */
export function overrideClockConfig(config: ClockConfig, o: TimelineOverrides): ClockConfig {
  if (o.clockOff.length === 0) return config;
  const mask = Object.fromEntries(OVERRIDE_CLOCK_FAMILIES.map((f) => [f, !o.clockOff.includes(f)]));
  return applyClockSwarmMask(config, mask as Record<OverrideClockFamily, boolean>);
}

/**
 * `config` running with `o`: the window and the injector change here, the rest where the seed
 * draws its chaos, topology and sizes. A window at or above the simulation's own changes nothing.
 */
export function withOverrides(config: SimulationConfig, o: TimelineOverrides): SimulationConfig {
  if (isEmptyOverrides(o)) return config.overrides === undefined ? config : { ...config, overrides: undefined };
  const window =
    config.chaosDurationMs !== null && o.chaosWindowMs !== null
      ? Math.min(config.chaosDurationMs, o.chaosWindowMs)
      : config.chaosDurationMs;
  return { ...config, overrides: o, chaosDurationMs: window, faultFactory: o.injectorOff ? null : config.faultFactory };
}
