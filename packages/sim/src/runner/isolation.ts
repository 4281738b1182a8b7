/**
 * Seed isolation: whether a seed on a worker gets a realm of its own (docs/decisions.md, seed
 * isolation). A realm is a worker thread: its own module instances, globals and libraries'
 * module-level state (ws's mask pool, uuid's byte pool, caches). "seed" gives every seed (every
 * root seed with its timelines, when exploring) a fresh one; "shared" reuses one for many seeds.
 *
 * Every seed gets a fresh realm unless the simulation (`isolation("shared")`) or the command
 * (`--isolation shared`) chooses otherwise: a provider-only simulation's module variables carry
 * over as surely as a library's pools, and the replay contract holds only if every seed starts
 * from the same module state. "shared" costs less (a fresh realm is a few hundred ms of CPU) and
 * its report says that replays are not guaranteed; every failure is still re-run alone before it
 * is reported (pool/replay-check.ts).
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { SimulationConfig } from "./config.ts";

export type IsolationMode = "seed" | "shared";

export const ISOLATION_MODES: readonly IsolationMode[] = ["seed", "shared"];

/** The mode a campaign runs with, and whether the simulation or the command chose it. */
export interface Isolation {
  readonly mode: IsolationMode;
  readonly chosen: "default" | "simulation" | "command";
}

export function checkIsolationMode(mode: unknown, where: string): IsolationMode {
  if (typeof mode === "string" && (ISOLATION_MODES as readonly string[]).includes(mode)) return mode as IsolationMode;
  throw new InvalidConfiguration(
    `${where}: unknown isolation ${JSON.stringify(mode) ?? String(mode)}; use "seed" (a fresh realm per seed) or "shared" (realms reused across seeds)`,
  );
}

/** The command's choice first, then the simulation's, then the default: a fresh realm per seed. */
export function resolveIsolation(config: SimulationConfig, command: IsolationMode | null = null): Isolation {
  if (command !== null) return { mode: command, chosen: "command" };
  if (config.isolation !== undefined) return { mode: config.isolation, chosen: "simulation" };
  return { mode: "seed", chosen: "default" };
}

/** The report's note on a campaign whose seeds shared realms (only ever by choice; null otherwise). */
export function sharedIsolationNote(isolation: Isolation): string | null {
  if (isolation.mode !== "shared") return null;
  return (
    "isolation 'shared': seeds reused realms, so a seed may depend on the module state the seeds before it " +
    "left; replays are not guaranteed (each failure was re-run alone, and one that differed says so)"
  );
}
