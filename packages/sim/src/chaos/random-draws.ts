/**
 * Drawing randomized network, storage and clock configurations: integer ranges scaled to a unit,
 * values drawn at one of several scales, ranges whose two bounds are both drawn, and the
 * one-third-each mix of latency shapes that the network and storage share.
 */
import type { RandomStream } from "../engine/rng.ts";
import { uniform, type LatencyDistribution, type RangeUs } from "../world/network/config.ts";

/** `[lo, hi, scale]`: a uniform integer in `[lo, hi)` times `scale` (e.g. per-100,000 rates). */
export type Draw = readonly [lo: number, hi: number, scale: number];
/** A latency range whose start and end are each drawn from their own range. */
export type LatencyDraw = { readonly startUs: RangeUs; readonly endUs: RangeUs };

/** The bimodal shape's slow mode: `[end, slowFactor × end]` with a drawn probability. */
export const BIMODAL_SLOW_FACTOR = 10;
export const BIMODAL_SLOW_PROBABILITY: Draw = [1, 10, 0.001];

export function draw(sim: RandomStream, [lo, hi, scale]: Draw): number {
  return sim.rangeInt(lo, hi) * scale;
}

/** A value drawn at one of several scales: one draw picks the scale (uniformly), one the value. */
export type ScaledDraw = readonly Draw[];

export function drawScaled(sim: RandomStream, scales: ScaledDraw): number {
  return draw(sim, scales[sim.rangeInt(0, scales.length)]!);
}

/** Two bounds drawn independently; they may cross, so order them and keep the range non-empty. */
export function drawRange(sim: RandomStream, start: RangeUs, end: RangeUs): RangeUs {
  const a = sim.rangeInt(start[0], start[1]);
  const b = sim.rangeInt(end[0], end[1]);
  const lo = Math.min(a, b);
  return [lo, Math.max(lo + 1, a, b)];
}

/** A latency distribution: uniform, exponential or bimodal, one third each. */
export function randomLatency(sim: RandomStream, spec: LatencyDraw): LatencyDistribution {
  const [startUs, endUs] = drawRange(sim, spec.startUs, spec.endUs);
  switch (sim.rangeInt(0, 3)) {
    case 0:
      return uniform([startUs, endUs]);
    case 1:
      return { shape: "exponential", minUs: startUs, meanUs: endUs - startUs };
    default:
      return {
        shape: "bimodal",
        fastUs: [startUs, endUs],
        slowUs: [endUs, BIMODAL_SLOW_FACTOR * endUs],
        slowProbability: draw(sim, BIMODAL_SLOW_PROBABILITY),
      };
  }
}

/**
 * A swarm mask: one `config`-stream draw per family in `families` order; a family stays on
 * (true) unless its draw falls under `offProbability`.
 */
export function drawFamilyMask<F extends string>(
  config: RandomStream,
  families: readonly F[],
  offProbability: number,
): Record<F, boolean> {
  const mask = {} as Record<F, boolean>;
  for (const family of families) mask[family] = !config.bool(offProbability);
  return mask;
}
