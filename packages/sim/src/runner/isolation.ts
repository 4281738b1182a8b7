/**
 * Seed isolation: whether a seed on a worker gets a realm of its own (docs/decisions.md, seed
 * isolation). A realm is a worker thread: its own module instances, globals and libraries'
 * module-level state (ws's mask pool, uuid's byte pool, caches). "seed" gives every seed (every
 * root seed with its timelines, when exploring) a fresh one; "shared" reuses one for many seeds.
 *
 * The default follows where module state can change a timeline unseen. With `nodeRuntime()`,
 * unmodified libraries draw from the seed's virtual randomness and clocks and may keep what they
 * drew for the next seed: "seed". Without it, simulated code that reaches for Math.random,
 * crypto or Date fails the seed (the escape guard), so what could carry over is the simulation's
 * own module variables, in the user's sight: "shared", which costs about a second of CPU less
 * per seed. Either way every failure is re-run alone before it is reported (pool/replay-check.ts).
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

/** The command's choice first, then the simulation's, then the default (see above). */
export function resolveIsolation(config: SimulationConfig, command: IsolationMode | null = null): Isolation {
  if (command !== null) return { mode: command, chosen: "command" };
  if (config.isolation !== undefined) return { mode: config.isolation, chosen: "simulation" };
  return { mode: config.nodeRuntime === true ? "seed" : "shared", chosen: "default" };
}

/** The report's note on a campaign whose seeds shared realms by choice (null otherwise). */
export function sharedIsolationNote(isolation: Isolation): string | null {
  if (isolation.mode !== "shared" || isolation.chosen === "default") return null;
  return (
    "isolation 'shared': seeds reused realms, so a seed may depend on the module state the seeds before it " +
    "left; replays are not guaranteed (each failure was re-run alone, and one that differed says so)"
  );
}
