/** Exploration settings (`enableExploration`), their defaults and validation. */
import { InvalidConfiguration } from "@moonpool/core";

export interface ExplorationConfig {
  /**
   * 0 (the default): every root seed explored in this thread. N: whole root seeds of a round are
   * shared with a pool of N worker threads (needs `simulationSource`). The outcome does not
   * depend on N, so the report does not record it.
   */
  readonly workers: number;
  /** Timelines (root run included) a root seed may use. */
  readonly maxRunsPerSeed: number;
  /** Continuations spawned each time a frontier entry is explored. */
  readonly branchingFactor: number;
  /**
   * Frontier entries explored per round: a round runs `branchingFactor` continuations of each of
   * the `entriesPerRound` best entries, all from the table as it was before the round, and merges
   * them in child order. 1 (the default): one entry per round. A search setting: siblings of a
   * round do not see each other's discoveries.
   */
  readonly entriesPerRound: number;
  /** Frontier entries kept per root seed; the least novel is evicted beyond this. */
  readonly maxFrontier: number;
  /** Reseed points a recipe may hold; discoveries deeper than this are not branched. */
  readonly maxRecipeLen: number;
  /** End a root seed at its first failing timeline (the CLI's default) instead of spending its budget. */
  readonly stopOnFailure: boolean;
  /**
   * Continuations every new frontier entry gets of its own before it competes on rarity, the
   * newest entry first (a depth-first dive along fresh discoveries). 0 (the default): rarity only.
   * Helps long chains of steps whose signals are mostly quality improvements of busy buckets.
   */
  readonly entryEnergy: number;
  /**
   * What a root does once no frontier entry is left to expand. false (the default): fresh
   * timelines only. true: batches alternate between fresh timelines and a retired entry brought
   * back (the rarest first, with a new allowance of unproductive batches), so a chain whose
   * entries retired before it was finished gets further tries while fresh timelines keep the
   * never-worse-than-random guarantee for half of the remaining budget.
   */
  readonly reviveRetired: boolean;
}

/** What the report records: everything but `workers`, which changes speed, never the outcome. */
export type ExplorationSettings = Omit<ExplorationConfig, "workers">;

/** Defaults: in this thread, 2,000 timelines per root seed, 4 continuations per branch, 512 frontier entries. */
export const DEFAULT_EXPLORATION: ExplorationConfig = {
  workers: 0,
  maxRunsPerSeed: 2000,
  branchingFactor: 4,
  entriesPerRound: 1,
  maxFrontier: 512,
  maxRecipeLen: 32,
  stopOnFailure: false,
  entryEnergy: 0,
  reviveRetired: false,
};

export function resolveExplorationConfig(partial: Partial<ExplorationConfig>): ExplorationConfig {
  const config = { ...DEFAULT_EXPLORATION, ...partial };
  for (const key of ["maxRunsPerSeed", "branchingFactor", "entriesPerRound", "maxFrontier", "maxRecipeLen"] as const) {
    const v = config[key];
    if (!Number.isSafeInteger(v) || v < 1)
      throw new InvalidConfiguration(`enableExploration({ ${key} }): must be a positive integer, got ${String(v)}`);
  }
  for (const key of ["stopOnFailure", "reviveRetired"] as const) {
    if (typeof config[key] !== "boolean")
      throw new InvalidConfiguration(
        `enableExploration({ ${key} }): must be true or false, got ${String(config[key])}`,
      );
  }
  if (!Number.isSafeInteger(config.entryEnergy) || config.entryEnergy < 0) {
    throw new InvalidConfiguration(
      `enableExploration({ entryEnergy }): must be 0 (rarity only) or a positive number of continuations, ` +
        `got ${String(config.entryEnergy)}`,
    );
  }
  if (!Number.isSafeInteger(config.workers) || config.workers < 0) {
    throw new InvalidConfiguration(
      `enableExploration({ workers }): must be 0 (in this thread) or a positive number of worker threads, got ${String(config.workers)}`,
    );
  }
  const known = new Set(Object.keys(DEFAULT_EXPLORATION));
  for (const key of Object.keys(partial)) {
    if (!known.has(key))
      throw new InvalidConfiguration(
        `enableExploration(): unknown option '${key}'; valid options: ${[...known].join(", ")}`,
      );
  }
  return config;
}
