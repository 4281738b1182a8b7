/**
 * `--shard i/n`: machine i of n runs the i-th contiguous block of seed indexes. Together the n
 * blocks are exactly the indexes one machine would run, each once. Blocks (not every n-th index)
 * because a contiguous block absorbs into the assertion table in campaign order: merging the
 * shards' tables in shard order is then the very same sequence of absorbs as one machine's run,
 * so the merged report equals the unsharded one (site order, first failures and watermark ties
 * included).
 */
import { UsageError } from "./errors.ts";
import { planSize, type BaseSeedSource, type SeedPlan } from "./seed-plan.ts";
import type { IndexRange } from "../runner/seed-plan.ts";

export interface Shard {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
}

export type { IndexRange } from "../runner/seed-plan.ts";

/** Environment variables `--shard auto/n` reads, in this order. */
export const SHARD_INDEX_ENV = {
  /** Kubernetes Indexed Job: 0-based completion index. */
  kubernetes: "JOB_COMPLETION_INDEX",
  /** Set from a CI matrix variable: 1-based. */
  generic: "MOONPOOL_SHARD_INDEX",
} as const;

const SHARD_FORM =
  "the form is --shard i/n with 1 <= i <= n (e.g. --shard 2/4), or --shard auto/n to take i from JOB_COMPLETION_INDEX (Kubernetes Indexed Job, 0-based) or MOONPOOL_SHARD_INDEX (1-based, e.g. from a CI matrix variable)";

function integer(text: string): number | null {
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : null;
}

export function parseShard(text: string, env: NodeJS.ProcessEnv = process.env): Shard {
  const match = /^([^/]+)\/([^/]+)$/.exec(text.trim());
  if (match === null) throw new UsageError(`--shard '${text}': ${SHARD_FORM}`);
  const count = integer(match[2]!);
  if (count === null || count < 1)
    throw new UsageError(`--shard '${text}': n must be a positive integer; ${SHARD_FORM}`);
  let index: number | null;
  if (match[1] === "auto") {
    const k8s = env[SHARD_INDEX_ENV.kubernetes];
    const generic = env[SHARD_INDEX_ENV.generic];
    if (k8s !== undefined && k8s !== "") {
      const zeroBased = integer(k8s);
      if (zeroBased === null)
        throw new UsageError(
          `--shard auto/${count}: ${SHARD_INDEX_ENV.kubernetes}='${k8s}' is not a non-negative integer`,
        );
      index = zeroBased + 1;
    } else if (generic !== undefined && generic !== "") {
      index = integer(generic);
      if (index === null)
        throw new UsageError(
          `--shard auto/${count}: ${SHARD_INDEX_ENV.generic}='${generic}' is not a positive integer`,
        );
    } else {
      throw new UsageError(
        `--shard auto/${count}: neither ${SHARD_INDEX_ENV.kubernetes} nor ${SHARD_INDEX_ENV.generic} is set; ${SHARD_FORM}`,
      );
    }
  } else {
    index = integer(match[1]!);
  }
  if (index === null || index < 1 || index > count)
    throw new UsageError(
      `--shard '${text}': shard ${String(index ?? match[1])} is not between 1 and ${count}; ${SHARD_FORM}`,
    );
  return { index, count };
}

/** The block of indexes shard `index` of `count` runs out of `total`. */
export function shardRange(total: number, shard: Shard | null): IndexRange {
  if (shard === null) return { start: 0, end: total };
  return {
    start: Math.floor(((shard.index - 1) * total) / shard.count),
    end: Math.floor((shard.index * total) / shard.count),
  };
}

/** Rejects what cannot be sharded, with what to do instead. */
export function checkShardable(plan: SeedPlan, baseSeedSource: BaseSeedSource, simulation: string): void {
  if (plan.kind === "untilStable") {
    throw new UsageError(
      `simulation '${simulation}' runs until coverage is stable, which cannot be split across machines (the stop rule depends on every earlier seed); ` +
        `shard a fixed number of seeds instead: --shard i/n --iterations N --base-seed B`,
    );
  }
  if (plan.kind === "adaptive") {
    throw new UsageError(
      `simulation '${simulation}' spends one adaptive budget, which cannot be split across machines (each batch is chosen from everything before it); ` +
        `shard a fixed number of seeds instead: --shard i/n --iterations N --base-seed B`,
    );
  }
  if (plan.kind === "fixed" && baseSeedSource === "wallClock") {
    throw new UsageError(
      `--shard needs the same base seed on every machine, and simulation '${simulation}' takes it from the wall clock: pass --base-seed B (the same B on every shard, e.g. the CI run id)`,
    );
  }
  if (planSize(plan) < 1) throw new UsageError(`simulation '${simulation}' has no seeds to shard`);
}
