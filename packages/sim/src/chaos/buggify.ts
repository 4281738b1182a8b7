/**
 * Buggify: cooperative fault injection at points the application chooses.
 *
 * Two decisions, both drawn from the counted `sim` stream so recipes replay them:
 * 1. Activation: the first time a seed meets a point id, the point is activated for the whole
 *    timeline with probability BUGGIFY_ACTIVATION_PROBABILITY (one draw, cached for the seed).
 * 2. Firing: an active point fires on each call with the call's probability (one draw per call):
 *    BUGGIFY_FIRE_PROBABILITY (25 %) for `buggify(id)` and `buggifyKnob`, `p` for `buggifyWithProb`.
 * So a default point fires on its first encounter with 12.5 % marginal probability. A call with
 * probability 0 returns false without drawing (and without deciding the activation).
 *
 * Buggify firing is not an explorer discovery; a paired sometimes assertion is.
 *
 * Also here: the swarm operation alphabet (`swarmOpEnabled`), a pure function of the seed that
 * consumes no randomness.
 */
import { BUGGIFY_FIRE_PROBABILITY } from "@moonpool/core";
import { assertSeed, splitmix64, type RandomStream } from "../engine/rng.ts";

/** Probability that a buggify point is activated for a seed when first encountered: 50 %. */
export const BUGGIFY_ACTIVATION_PROBABILITY = 0.5;
/** Firing probability of an active `buggifyKnob` point (the same 25 % as `buggify`). */
export const BUGGIFY_KNOB_FIRE_PROBABILITY = BUGGIFY_FIRE_PROBABILITY;
export { BUGGIFY_FIRE_PROBABILITY };

/** Operation ids of the swarm alphabet are bytes. */
export const MAX_SWARM_OP_ID = 255;
/** Key mixed into the seed for the swarm mask ("opmasksr" in ASCII), so it is independent of the other streams. */
const SWARM_OP_KEY = 0x6f706d61736b7372n;
const MASK_64 = (1n << 64n) - 1n;

export interface BuggifyPointStats {
  readonly id: string;
  readonly active: boolean;
  /** Calls with probability > 0. */
  readonly calls: number;
  readonly fired: number;
}

class Point {
  calls = 0;
  fired = 0;
  constructor(
    readonly id: string,
    readonly active: boolean,
  ) {}
}

function checkProbability(probability: number, what: string): void {
  if (typeof probability !== "number" || !(probability >= 0 && probability <= 1)) {
    throw new RangeError(`${what} must be a probability between 0 and 1, got ${String(probability)}`);
  }
}

function checkId(id: string, call: string): void {
  if (typeof id !== "string" || id.length === 0) {
    throw new TypeError(
      `${call} needs a stable, non-empty string id naming the point (for example "storage: short write"), got ${JSON.stringify(id) ?? String(id)}`,
    );
  }
}

/** Per-seed buggify state. A new instance for every seed (and every explored timeline). */
export class Buggify {
  private readonly points = new Map<string, Point>();

  constructor(
    private readonly sim: RandomStream,
    readonly activationProbability: number = BUGGIFY_ACTIVATION_PROBABILITY,
  ) {
    checkProbability(activationProbability, "buggify activation probability");
  }

  /** Whether point `id` fires now (see the module comment for the draws it makes). */
  fires(id: string, probability: number): boolean {
    checkId(id, "buggify");
    checkProbability(probability, `buggifyWithProb("${id}", p): p`);
    if (probability <= 0) return false;
    let point = this.points.get(id);
    if (point === undefined) {
      point = new Point(id, this.sim.ratio() < this.activationProbability);
      this.points.set(id, point);
    }
    point.calls++;
    if (!point.active) return false;
    const fired = this.sim.ratio() < probability;
    if (fired) point.fired++;
    return fired;
  }

  /**
   * `defaultValue` normally; when the point fires (25 %), a uniform value in `[lo, hi)`: an
   * integer when both bounds are safe integers, a float otherwise. An empty range yields `lo`
   * (not the default).
   */
  knob(id: string, defaultValue: number, lo: number, hi: number): number {
    checkId(id, "buggifyKnob");
    if (typeof lo !== "number" || typeof hi !== "number" || !Number.isFinite(lo) || !Number.isFinite(hi)) {
      throw new RangeError(
        `buggifyKnob("${id}", default, [lo, hi)) needs finite numeric bounds, got [${String(lo)}, ${String(hi)})`,
      );
    }
    if (!this.fires(id, BUGGIFY_KNOB_FIRE_PROBABILITY)) return defaultValue;
    if (!(lo < hi)) return lo;
    if (Number.isSafeInteger(lo) && Number.isSafeInteger(hi)) return this.sim.rangeInt(lo, hi);
    return this.sim.rangeFloat(lo, hi);
  }

  /** Ids activated in this seed, in first-encounter order (for the report). */
  activatedIds(): string[] {
    const out: string[] = [];
    for (const point of this.points.values()) if (point.active) out.push(point.id);
    return out;
  }

  /** Every point met in this seed, in first-encounter order. */
  stats(): BuggifyPointStats[] {
    return [...this.points.values()].map((p) => ({ id: p.id, active: p.active, calls: p.calls, fired: p.fired }));
  }
}

function rotl64(value: bigint, bits: bigint): bigint {
  return ((value << bits) | (value >> (64n - bits))) & MASK_64;
}

/**
 * Whether operation family `opId` (an integer 0..255) is in `seed`'s swarm of the operation
 * alphabet: the top bit of `splitmix64(seed ^ 0x6F706D61736B7372 ^ rotl64(opId, 32))`. About half
 * of the ids are enabled per seed, independently per id; no randomness is consumed.
 */
export function swarmOpEnabled(seed: number, opId: number): boolean {
  assertSeed(seed);
  if (!Number.isInteger(opId) || opId < 0 || opId > MAX_SWARM_OP_ID) {
    throw new RangeError(
      `swarmOpEnabled(opId): opId must be an integer 0..${MAX_SWARM_OP_ID} (one byte per operation family), got ${String(opId)}`,
    );
  }
  const input = (BigInt(seed) ^ SWARM_OP_KEY ^ rotl64(BigInt(opId), 32n)) & MASK_64;
  return splitmix64(input).value >> 63n === 1n;
}
