/**
 * Which DNS faults a seed runs with: none (the default), a fixed configuration
 * (`.dnsFaults(config)`), or `Chaos.dns("random" | "swarm")`: every parameter drawn from the seed's
 * `sim` stream within `RANDOM_DNS_RANGES`, then (swarm) one `config`-stream draw per family in
 * `SWARM_DNS_FAMILIES` order switching it off with probability 1/2. Nothing is drawn without an
 * entry, so seeds of simulations without DNS chaos keep their draws.
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { SeedStreams } from "../engine/rng.ts";
import { DNS_NO_FAULTS, type DnsFaultConfig } from "../world/node-net/dns-table.ts";
import type { ChaosMode } from "./chaos.ts";
import { draw, drawFamilyMask, type Draw } from "./random-draws.ts";

export type DnsFaultsSetting = "none" | DnsFaultConfig;

/** The ranges `Chaos.dns("random")` draws from (sim stream, in this order). */
export const RANDOM_DNS_RANGES = Object.freeze({
  /** 0–19 % of lookups answered late... */
  slowProbability: [0, 20, 0.01] as Draw,
  /** ...by up to 100–2,999 ms. */
  slowDelayMaxMs: [100, 3_000, 1] as Draw,
  /** 0–9 % of lookups fail... */
  failureProbability: [0, 10, 0.01] as Draw,
  /** ...20–79 % of them with EAI_AGAIN, the rest ENOTFOUND. */
  tryAgainShare: [20, 80, 0.01] as Draw,
  /** Group answers held 0.5–9.9 s by the asking process. */
  staleMs: [5, 100, 100] as Draw,
});

export const SWARM_DNS_FAMILIES = ["slow", "failure", "stale"] as const;
export type SwarmDnsFamily = (typeof SWARM_DNS_FAMILIES)[number];
export const SWARM_DNS_FAMILY_OFF_PROBABILITY = 0.5;

/** What a seed's DNS ran with (in `SeedResult.chaos.dns`). */
export interface DnsChaosRecord {
  readonly mode: "none" | "custom" | ChaosMode;
  readonly swarmMask: Readonly<Record<SwarmDnsFamily, boolean>> | null;
  readonly config: DnsFaultConfig;
}

function inUnit(value: unknown): boolean {
  return typeof value === "number" && value >= 0 && value <= 1;
}

/** Mistakes in a fixed configuration, each saying what to change. */
export function dnsFaultConfigErrors(config: DnsFaultConfig): string[] {
  const errors: string[] = [];
  for (const key of ["slowProbability", "failureProbability", "tryAgainShare"] as const)
    if (!inUnit(config[key])) errors.push(`${key} must be a number in 0 ..= 1, got ${String(config[key])}`);
  const delay = config.slowDelayMs;
  if (!Array.isArray(delay) || delay.length !== 2 || !(delay[0] >= 0) || !(delay[1] >= delay[0]))
    errors.push(`slowDelayMs must be [min, max] with 0 <= min <= max, got ${JSON.stringify(delay)}`);
  if (!(typeof config.staleMs === "number" && config.staleMs >= 0 && Number.isFinite(config.staleMs)))
    errors.push(`staleMs must be a finite number >= 0, got ${String(config.staleMs)}`);
  return errors;
}

/** `dnsFaults(setting)`: "none", or a checked, frozen configuration (missing fields off). */
export function checkDnsFaultsSetting(setting: unknown): DnsFaultsSetting {
  if (setting === "none") return "none";
  if (setting === null || typeof setting !== "object") {
    throw new InvalidConfiguration(
      `dnsFaults(setting): setting must be "none" or a DnsFaultConfig object, got ${JSON.stringify(setting) ?? String(setting)}`,
    );
  }
  const config = Object.freeze({ ...DNS_NO_FAULTS, ...(setting as Partial<DnsFaultConfig>) });
  const errors = dnsFaultConfigErrors(config);
  if (errors.length > 0) throw new InvalidConfiguration(`dnsFaults(config): ${errors.join("; ")}`);
  return config;
}

export function randomDnsConfig(streams: SeedStreams): DnsFaultConfig {
  const r = RANDOM_DNS_RANGES;
  const sim = streams.sim;
  const slowProbability = draw(sim, r.slowProbability);
  const slowDelayMaxMs = draw(sim, r.slowDelayMaxMs);
  const failureProbability = draw(sim, r.failureProbability);
  const tryAgainShare = draw(sim, r.tryAgainShare);
  const staleMs = draw(sim, r.staleMs);
  return Object.freeze({
    slowProbability,
    slowDelayMs: [0, slowDelayMaxMs] as const,
    failureProbability,
    tryAgainShare,
    staleMs,
  });
}

/** The DNS configuration of one seed; draws only with a `Chaos.dns` entry. */
export function resolveDnsChaos(mode: ChaosMode | null, fixed: DnsFaultsSetting, streams: SeedStreams): DnsChaosRecord {
  if (mode === null) {
    return Object.freeze({
      mode: fixed === "none" ? "none" : "custom",
      swarmMask: null,
      config: fixed === "none" ? DNS_NO_FAULTS : fixed,
    });
  }
  let config = randomDnsConfig(streams);
  let swarmMask: Record<SwarmDnsFamily, boolean> | null = null;
  if (mode === "swarm") {
    swarmMask = Object.freeze(drawFamilyMask(streams.config, SWARM_DNS_FAMILIES, SWARM_DNS_FAMILY_OFF_PROBABILITY));
    config = Object.freeze({
      slowProbability: swarmMask.slow ? config.slowProbability : 0,
      slowDelayMs: swarmMask.slow ? config.slowDelayMs : DNS_NO_FAULTS.slowDelayMs,
      failureProbability: swarmMask.failure ? config.failureProbability : 0,
      tryAgainShare: swarmMask.failure ? config.tryAgainShare : 0,
      staleMs: swarmMask.stale ? config.staleMs : 0,
    });
  }
  return Object.freeze({ mode, swarmMask, config });
}

/** The report's words for it: nothing without DNS faults. */
export function describeDnsChaos(record: DnsChaosRecord): string {
  if (record.mode === "none") return "";
  const c = record.config;
  return `dns=${record.mode}[slow:${c.slowProbability}@${c.slowDelayMs[1]}ms,fail:${c.failureProbability},stale:${c.staleMs}ms]`;
}
