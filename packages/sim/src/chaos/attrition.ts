/**
 * Attrition: the built-in background reboots.
 *
 *   Chaos.attrition({ maxDead: 1, probGraceful: 1, probCrash: 2, probWipe: 0 }, "swarm")
 *   Chaos.attrition({ maxDead: 1, probGraceful: 0, probCrash: 1, probWipe: 0, victims: AttritionVictims.group("acceptor") }, "random")
 *
 * - `probGraceful`, `probCrash`, `probWipe` are weights (normalized; all zero means crash).
 * - `victims`: which processes may be rebooted — `AttritionVictims.any()` (default), a group
 *   (`.group("acceptor")`, named after its process) or a tag (`.tagged("role", "storage")`).
 * - `maxDead` counts the dead processes of the victim pool (whatever killed them): attrition
 *   reboots nothing that would take the pool above it, and never picks a process that is already
 *   dead (see docs/departures.md).
 * - `scope`: `"process"` (default) reboots one process; `"machine"`, `"zone"` or `"datacenter"`
 *   (needs `.cluster(...)`) picks one failure domain holding live victims and reboots all its live
 *   victims together, with one kind, if the budget allows the whole domain. Victims outside the
 *   cluster have no domain: a domain scope never reboots them (they still count for `maxDead`).
 * - `recoveryDelayMs` (default 1000..10000) and `gracePeriodMs` (default 2000..5000): fixed or
 *   `[minMs, maxMs]`, drawn per reboot.
 *
 * One entry per victim pool: a later `Chaos.attrition` for the same victims (same group, same tag,
 * or `any` again) replaces the earlier one in place; entries for different pools each run their
 * own loop with their own budget (pools may overlap: each budget counts its own pool).
 *
 * Mode `"random"` runs the entry as configured. `"swarm"` draws 4 booleans per entry from the
 * `config` stream (p = 1/2 each, in this order): `maxDead` forced to 0 (a seed without reboots),
 * `probGraceful` zeroed, `probCrash` zeroed, `probWipe` zeroed (all weights zero: crash).
 *
 * The injector itself (runner/attrition-injector.ts) acts every 1000..5000 ms of simulated time
 * while the chaos window is open; attrition needs `.chaosDuration(ms)`.
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { RandomStream } from "../engine/rng.ts";
import {
  DEFAULT_GRACE_PERIOD_MS,
  DEFAULT_RECOVERY_DELAY_MS,
  delayRangeError,
  normalizeDelayRange,
  type DelayRangeMs,
  type RebootKind,
} from "./reboot-kinds.ts";
import type { ChaosMode } from "./chaos.ts";
import { drawFamilyMask } from "./random-draws.ts";

/** What one reboot takes down: a process, or every victim of one failure domain of the cluster. */
export type AttritionScope = "process" | "machine" | "zone" | "datacenter";
export const ATTRITION_SCOPES: readonly AttritionScope[] = ["process", "machine", "zone", "datacenter"];

/** The pool attrition picks from. */
export type AttritionVictims =
  | { readonly kind: "any" }
  | { readonly kind: "group"; readonly group: string }
  | { readonly kind: "tagged"; readonly key: string; readonly value: string };

export const AttritionVictims = Object.freeze({
  /** Every process. */
  any(): AttritionVictims {
    return Object.freeze({ kind: "any" });
  },
  /** The processes of one group (named after its process's `name`). */
  group(name: string): AttritionVictims {
    if (typeof name !== "string" || name.length === 0)
      throw new InvalidConfiguration(
        `AttritionVictims.group(name): name must be a process group's name, got ${JSON.stringify(name) ?? String(name)}`,
      );
    return Object.freeze({ kind: "group", group: name });
  },
  /** The processes whose tag `key` is `value` (see `.tags(...)`). */
  tagged(key: string, value: string): AttritionVictims {
    if (typeof key !== "string" || key.length === 0 || typeof value !== "string") {
      throw new InvalidConfiguration(
        `AttritionVictims.tagged(key, value): key must be a non-empty string and value a string, got ${JSON.stringify(key)}, ${JSON.stringify(value)}`,
      );
    }
    return Object.freeze({ kind: "tagged", key, value });
  },
});

/** `Chaos.attrition(config, mode)`'s config. */
export interface AttritionConfig {
  /** Most dead processes of the victim pool at once (0: never reboot). */
  readonly maxDead: number;
  /** Weight of graceful reboots. */
  readonly probGraceful: number;
  /** Weight of crashes. */
  readonly probCrash: number;
  /** Weight of crash-and-wipe (only if the system may lose that process's durable state). */
  readonly probWipe: number;
  /** Default 1000..10000 ms. */
  readonly recoveryDelayMs?: DelayRangeMs;
  /** Default 2000..5000 ms. */
  readonly gracePeriodMs?: DelayRangeMs;
  /** Default "process". */
  readonly scope?: AttritionScope;
  /** Default `AttritionVictims.any()`. */
  readonly victims?: AttritionVictims;
}

/** A validated `Chaos.attrition` entry, defaults filled in. */
export interface AttritionPlan {
  readonly mode: ChaosMode;
  readonly maxDead: number;
  readonly probGraceful: number;
  readonly probCrash: number;
  readonly probWipe: number;
  readonly recoveryDelayMs: readonly [number, number];
  readonly gracePeriodMs: readonly [number, number];
  readonly scope: AttritionScope;
  readonly victims: AttritionVictims;
}

/** The order of the 4 `config`-stream draws of a swarm entry. */
export const SWARM_ATTRITION_FIELDS = ["maxDead", "graceful", "crash", "wipe"] as const;
/** The swarm mask of one entry (one field per draw): true = left as configured, false = zeroed this seed. */
export type AttritionSwarmMask = Readonly<Record<(typeof SWARM_ATTRITION_FIELDS)[number], boolean>>;
/** Probability that the swarm mask zeroes one field for a seed. */
export const SWARM_ATTRITION_OFF_PROBABILITY = 0.5;

/** One entry as a seed runs it (in `SeedResult.chaos.attrition`). */
export interface AttritionChaosRecord {
  readonly victims: AttritionVictims;
  readonly scope: AttritionScope;
  readonly mode: ChaosMode;
  /** Swarm only. */
  readonly swarmMask: AttritionSwarmMask | null;
  /** The values this seed runs with (after the swarm mask). */
  readonly maxDead: number;
  readonly probGraceful: number;
  readonly probCrash: number;
  readonly probWipe: number;
  readonly recoveryDelayMs: readonly [number, number];
  readonly gracePeriodMs: readonly [number, number];
}

/** The key entries override each other by. */
export function victimsKey(victims: AttritionVictims): string {
  switch (victims.kind) {
    case "any":
      return "any";
    case "group":
      return `group:${victims.group}`;
    case "tagged":
      return `tagged:${victims.key}=${victims.value}`;
  }
}

function checkVictims(victims: unknown, call: string): AttritionVictims {
  const v = victims as Partial<{ kind: string; group: unknown; key: unknown; value: unknown }> | null;
  if (v !== null && typeof v === "object") {
    if (v.kind === "any") return AttritionVictims.any();
    if (v.kind === "group" && typeof v.group === "string" && v.group.length > 0) return AttritionVictims.group(v.group);
    if (v.kind === "tagged" && typeof v.key === "string" && v.key.length > 0 && typeof v.value === "string")
      return AttritionVictims.tagged(v.key, v.value);
  }
  throw new InvalidConfiguration(
    `${call}: victims must be AttritionVictims.any(), AttritionVictims.group(name) or AttritionVictims.tagged(key, value), got ${JSON.stringify(victims) ?? String(victims)}`,
  );
}

/** Validates `config` (what can be seen without the topology) and fills the defaults. */
export function checkAttrition(config: AttritionConfig, mode: ChaosMode, call: string): AttritionPlan {
  if (config === null || typeof config !== "object") {
    throw new InvalidConfiguration(
      `${call}: config must be { maxDead, probGraceful, probCrash, probWipe, recoveryDelayMs?, gracePeriodMs?, scope?, victims? }`,
    );
  }
  const errors: string[] = [];
  if (!Number.isSafeInteger(config.maxDead) || config.maxDead < 0)
    errors.push(`maxDead must be a whole number >= 0, got ${String(config.maxDead)}`);
  for (const name of ["probGraceful", "probCrash", "probWipe"] as const) {
    const w = config[name];
    if (typeof w !== "number" || !Number.isFinite(w) || w < 0)
      errors.push(`${name} must be a finite weight >= 0 (weights, not percentages), got ${String(w)}`);
  }
  const recovery = config.recoveryDelayMs ?? DEFAULT_RECOVERY_DELAY_MS;
  const grace = config.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS;
  const recoveryError = delayRangeError(recovery, "recoveryDelayMs");
  const graceError = delayRangeError(grace, "gracePeriodMs");
  if (recoveryError !== null) errors.push(recoveryError);
  if (graceError !== null) errors.push(graceError);
  const scope = config.scope ?? "process";
  if (!ATTRITION_SCOPES.includes(scope))
    errors.push(
      `scope must be one of ${ATTRITION_SCOPES.map((s) => `"${s}"`).join(", ")}, got ${JSON.stringify(scope) ?? String(scope)}`,
    );
  if (errors.length > 0) throw new InvalidConfiguration(`${call}: ${errors.join("; ")}`);
  return Object.freeze({
    mode,
    maxDead: config.maxDead,
    probGraceful: config.probGraceful,
    probCrash: config.probCrash,
    probWipe: config.probWipe,
    recoveryDelayMs: normalizeDelayRange(recovery),
    gracePeriodMs: normalizeDelayRange(grace),
    scope,
    victims: checkVictims(config.victims ?? AttritionVictims.any(), call),
  });
}

/** Adds `plan` to `entries`, replacing an entry for the same victims in place. */
export function addAttritionEntry(entries: readonly AttritionPlan[], plan: AttritionPlan): AttritionPlan[] {
  const key = victimsKey(plan.victims);
  const out = entries.slice();
  const at = out.findIndex((e) => victimsKey(e.victims) === key);
  if (at >= 0) out[at] = plan;
  else out.push(plan);
  return out;
}

/** What the builder knows about a process group, for the checks that need the topology. */
export interface AttritionGroupInfo {
  readonly name: string;
  readonly tags: Readonly<Record<string, readonly string[]>>;
  readonly cluster: boolean;
}

/** Combination mistakes of the attrition entries with the rest of the configuration. */
export function attritionErrors(
  entries: readonly AttritionPlan[],
  groups: readonly AttritionGroupInfo[],
  chaosDurationMs: number | null,
): string[] {
  if (entries.length === 0) return [];
  const errors: string[] = [];
  if (chaosDurationMs === null) {
    errors.push(
      "Chaos.attrition(...) needs a chaos window: add .chaosDuration(ms); attrition reboots processes only between the start of the run phase and the cutoff, leaving a quiet tail for recovery",
    );
  }
  if (groups.length === 0)
    errors.push(
      "Chaos.attrition(...) reboots processes and there are none: add .processes(count, factory) or .cluster(config, factory)",
    );
  const cluster = groups.find((g) => g.cluster);
  for (const entry of entries) {
    const name = `Chaos.attrition(victims ${victimsKey(entry.victims)})`;
    const v = entry.victims;
    let pool: AttritionGroupInfo[] = groups.slice();
    if (v.kind === "group") {
      pool = groups.filter((g) => g.name === v.group);
      if (pool.length === 0 && groups.length > 0)
        errors.push(
          `${name}: no process group is named '${v.group}'; groups: ${groups.map((g) => `'${g.name}'`).join(", ")}`,
        );
    } else if (v.kind === "tagged") {
      pool = groups.filter((g) => g.tags[v.key]?.includes(v.value) === true);
      if (pool.length === 0 && groups.length > 0)
        errors.push(
          `${name}: no process group has tag ${v.key}=${v.value}; set it with .tags({ ${JSON.stringify(v.key)}: [...] }) after the group's processes(...)`,
        );
    }
    if (entry.scope !== "process") {
      if (cluster === undefined) {
        errors.push(
          `${name}: scope "${entry.scope}" needs failure domains: lay the processes out with .cluster(config, factory), or use scope "process"`,
        );
      } else if (pool.length > 0 && !pool.some((g) => g.cluster)) {
        errors.push(
          `${name}: scope "${entry.scope}" reboots domains of the cluster group '${cluster.name}', and none of these victims is in it; choose victims in the cluster or scope "process"`,
        );
      }
    }
  }
  return errors;
}

/**
 * The entries as one seed runs them. Swarm entries draw their 4 mask booleans from `config`, in
 * entry order; random entries draw nothing.
 */
export function resolveAttritionChaos(entries: readonly AttritionPlan[], config: RandomStream): AttritionChaosRecord[] {
  return entries.map((entry) => {
    let mask: AttritionSwarmMask | null = null;
    if (entry.mode === "swarm") {
      mask = Object.freeze(drawFamilyMask(config, SWARM_ATTRITION_FIELDS, SWARM_ATTRITION_OFF_PROBABILITY));
    }
    return Object.freeze({
      victims: entry.victims,
      scope: entry.scope,
      mode: entry.mode,
      swarmMask: mask,
      maxDead: mask === null || mask.maxDead ? entry.maxDead : 0,
      probGraceful: mask === null || mask.graceful ? entry.probGraceful : 0,
      probCrash: mask === null || mask.crash ? entry.probCrash : 0,
      probWipe: mask === null || mask.wipe ? entry.probWipe : 0,
      recoveryDelayMs: entry.recoveryDelayMs,
      gracePeriodMs: entry.gracePeriodMs,
    });
  });
}

/**
 * The kind of one reboot: `u = rangeInt(0, 10000) / 10000` (one sim draw) scaled by the total
 * weight picks graceful, crash or crash-and-wipe; all weights zero means crash (no draw).
 */
export function drawRebootKind(
  sim: RandomStream,
  record: Pick<AttritionChaosRecord, "probGraceful" | "probCrash" | "probWipe">,
): RebootKind {
  const total = record.probGraceful + record.probCrash + record.probWipe;
  if (!(total > 0)) return "crash";
  const r = (sim.rangeInt(0, 10_000) / 10_000) * total;
  if (r < record.probGraceful) return "graceful";
  if (r < record.probGraceful + record.probCrash) return "crash";
  return "crashAndWipe";
}

/** One line per entry for reports: `attrition[any]=swarm maxDead=1 weights=1/2/0 off=[wipe]`. */
export function describeAttritionChaos(record: AttritionChaosRecord): string {
  const parts = [
    `attrition[${victimsKey(record.victims)}${record.scope === "process" ? "" : `/${record.scope}`}]=${record.mode}`,
  ];
  parts.push(`maxDead=${record.maxDead}`, `weights=${record.probGraceful}/${record.probCrash}/${record.probWipe}`);
  // All weights zero still reboots: every reboot is then a crash (see drawRebootKind).
  const totalWeight = record.probGraceful + record.probCrash + record.probWipe;
  if (record.maxDead > 0 && !(totalWeight > 0)) parts.push("(all zero: crashes only)");
  if (record.swarmMask !== null) {
    const off = SWARM_ATTRITION_FIELDS.filter((f) => !record.swarmMask![f]);
    parts.push(`off=[${off.join(",")}]`);
  }
  return parts.join(" ");
}
