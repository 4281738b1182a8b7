/**
 * Measuring helpers of the peer benchmarks (bench/peers.ts): CPU time of a piece of work
 * (process.cpuUsage, user + system, every thread of the process), interleaved pairs and their
 * min / median / max, and a seeded PRNG for the peers' own random sleeps.
 */

export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

/** CPU milliseconds of `work` (the process's user + system time). */
export async function cpuMs(work: () => Promise<unknown> | unknown): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (x: number) => Number(x.toFixed(3));
  return {
    min: round(sorted[0]!),
    median: round(sorted[Math.floor(sorted.length / 2)]!),
    max: round(sorted[sorted.length - 1]!),
  };
}

/**
 * Runs `pairs` interleaved pairs of (ours, theirs) after `warmup` unmeasured pairs and returns the
 * per-pair ratio `ratio(ours, theirs)`: each ratio is taken within one pair, so a noisy neighbour
 * slows both sides alike. The order inside a pair alternates so neither side always runs first.
 */
export async function pairedRatios(
  pairs: number,
  warmup: number,
  ours: () => Promise<number>,
  theirs: () => Promise<number>,
  ratio: (ours: number, theirs: number) => number,
): Promise<number[]> {
  for (let w = 0; w < warmup; w++) {
    await ours();
    await theirs();
  }
  const out: number[] = [];
  for (let p = 0; p < pairs; p++) {
    let a: number;
    let b: number;
    if (p % 2 === 0) {
      a = await ours();
      b = await theirs();
    } else {
      b = await theirs();
      a = await ours();
    }
    out.push(ratio(a, b));
  }
  return out;
}

/** A small seeded PRNG (mulberry32) for the peers' own random draws. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
