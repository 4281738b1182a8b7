/**
 * Seeded random streams: a hand-written xoshiro128** with an always-on draw counter
 * (~2 ns per draw, counting is nearly free: docs/decisions.md D9).
 *
 * Reseed breakpoints are how an exploration recipe replays a timeline. A `DrawClock` counts the
 * draws of the streams attached to it; after `count` draws of the current segment it reseeds the
 * streams the breakpoint names (`sim`, `schedule` or both) and a new segment starts at draw 0.
 * Reseeding `schedule` changes the order of same-instant events, so interleavings are explorable.
 */

const MASK_64 = (1n << 64n) - 1n;
const TWO_POW_32 = 4294967296;
const TWO_POW_53 = 9007199254740992;

/** Largest seed accepted anywhere: seeds are non-negative safe integers printed in decimal. */
export const MAX_SEED = Number.MAX_SAFE_INTEGER;

/** splitmix64 step on BigInt: used only when seeding, never on the hot path. */
export function splitmix64(state: bigint): { value: bigint; next: bigint } {
  const next = (state + 0x9e3779b97f4a7c15n) & MASK_64;
  let z = next;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK_64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK_64;
  return { value: z ^ (z >> 31n), next };
}

/**
 * Initial xoshiro states already computed, per stream key and seed. Exploration reseeds the same
 * few seeds over and over (every timeline of a root, every replayed prefix), and seeding goes
 * through BigInt; the cache is cleared when it grows past INITIAL_STATES_MAX entries.
 */
interface KeyStates {
  readonly streamKey: bigint;
  /** The key's high and low 32 bits (unsigned): seeding runs on them without BigInt. */
  readonly keyHi: number;
  readonly keyLo: number;
  readonly states: Map<number, Int32Array>;
}
/** One entry per stream key (a handful): scanned with `===`, as a Map keyed by BigInt hashes it on every lookup. */
const initialStates: KeyStates[] = [];
let initialStatesSize = 0;
const INITIAL_STATES_MAX = 4096;

function statesOf(streamKey: bigint): KeyStates {
  for (const entry of initialStates) if (entry.streamKey === streamKey) return entry;
  const keyHi = Number((streamKey >> 32n) & 0xffffffffn);
  const keyLo = Number(streamKey & 0xffffffffn);
  const entry = { streamKey, keyHi, keyLo, states: new Map<number, Int32Array>() };
  initialStates.push(entry);
  return entry;
}

/** The product of two 64-bit numbers given as unsigned 32-bit halves, mod 2^64: into `mulHi` and `mulLo`. */
let mulHi = 0;
let mulLo = 0;
function mul64(aHi: number, aLo: number, bHi: number, bLo: number): void {
  const a0 = aLo & 0xffff;
  const a1 = aLo >>> 16;
  const b0 = bLo & 0xffff;
  const b1 = bLo >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  mulLo = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  // Every term is exact in a double; `>>> 0` takes the sum mod 2^32.
  const carry = a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
  mulHi = (carry + Math.imul(aLo, bHi) + Math.imul(aHi, bLo)) >>> 0;
}

function initialState(seed: number, keyStates: KeyStates): Int32Array {
  const { keyHi, keyLo, states: byKey } = keyStates;
  const known = byKey.get(seed);
  if (known !== undefined) return known;
  // `splitmix64` on 32-bit halves (the same words as its BigInt form, without a BigInt per step):
  // state = seed ^ key, then twice: state += golden; z = mix(state).
  let sHi = (Math.floor(seed / TWO_POW_32) ^ keyHi) >>> 0;
  let sLo = ((seed >>> 0) ^ keyLo) >>> 0;
  const words = new Int32Array(4);
  for (let i = 0; i < 2; i++) {
    const lo = sLo + 0x7f4a7c15;
    sHi = (sHi + 0x9e3779b9 + (lo >= TWO_POW_32 ? 1 : 0)) >>> 0;
    sLo = lo >>> 0;
    mul64((sHi ^ (sHi >>> 30)) >>> 0, (sLo ^ ((sLo >>> 30) | (sHi << 2))) >>> 0, 0xbf58476d, 0x1ce4e5b9);
    const hi1 = mulHi;
    const lo1 = mulLo;
    mul64((hi1 ^ (hi1 >>> 27)) >>> 0, (lo1 ^ ((lo1 >>> 27) | (hi1 << 5))) >>> 0, 0x94d049bb, 0x133111eb);
    words[2 * i] = mulLo ^ ((mulLo >>> 31) | (mulHi << 1));
    words[2 * i + 1] = mulHi ^ (mulHi >>> 31);
  }
  // xoshiro must not start from the all-zero state.
  if ((words[0]! | words[1]! | words[2]! | words[3]!) === 0) words[0] = 1;
  if (initialStatesSize >= INITIAL_STATES_MAX) {
    for (const entry of initialStates) entry.states.clear();
    initialStatesSize = 0;
  }
  byKey.set(seed, words);
  initialStatesSize++;
  return words;
}

/** Which streams a breakpoint reseeds. */
export type BreakpointStreams = "sim" | "schedule" | "sim+schedule";

/**
 * A reseed point: after `count` draws of the current segment, reseed. Without `streams` (the
 * original recipe form) `count` counts `sim` draws only and only `sim` is reseeded; with
 * `streams`, `count` counts the draws of `sim` and `schedule` together and the named streams are
 * reseeded. One recipe uses one form throughout.
 */
export interface Breakpoint {
  readonly count: number;
  readonly seed: number;
  readonly streams?: BreakpointStreams;
}

export function assertSeed(seed: number, what = "seed"): void {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`${what} must be a non-negative safe integer (0 ..= ${MAX_SEED}), got ${String(seed)}`);
  }
}

export class RandomStream {
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;
  /** Draws made in the current segment (since the seed or the last breakpoint). */
  calls = 0;
  /** Draws made in total, across breakpoints. */
  totalCalls = 0;
  /** Index of the current segment: 0 before any breakpoint fired. */
  segment = 0;
  /** The breakpoint clock this stream's draws advance (null: no breakpoints possible). */
  clock: DrawClock | null = null;
  /** The rejection limit of the last span drawn from (most draws repeat the same range). */
  private lastSpan = 0;
  private lastLimit = 0;
  /** Called before every draw when set: determinism checks record draw sites with it. */
  observer: ((segment: number, calls: number) => void) | null = null;

  /** The initial states already computed for this stream's key. */
  private readonly keyStates: KeyStates;

  constructor(seed: number, streamKey: bigint) {
    this.keyStates = statesOf(streamKey);
    this.reseed(seed);
  }

  /** A stream with an explicit xoshiro128** state (reference-vector tests). */
  static fromState(s0: number, s1: number, s2: number, s3: number): RandomStream {
    const stream = new RandomStream(0, 0n);
    stream.s0 = s0 | 0;
    stream.s1 = s1 | 0;
    stream.s2 = s2 | 0;
    stream.s3 = s3 | 0;
    return stream;
  }

  /** Restarts the stream from `seed` (draw counts of the segment restart at 0). */
  reseed(seed: number): void {
    const words = initialState(seed, this.keyStates);
    this.s0 = words[0]!;
    this.s1 = words[1]!;
    this.s2 = words[2]!;
    this.s3 = words[3]!;
    this.calls = 0;
  }

  /** Breakpoints of this stream alone (a stream of `seedStreams` sets them on its shared clock). */
  setBreakpoints(breakpoints: readonly Breakpoint[]): void {
    if (this.clock === null) {
      // Counts continue from the draws already made in this segment.
      this.clock = new DrawClock(this, null);
      this.clock.calls = this.calls;
    }
    this.clock.setBreakpoints(breakpoints);
  }

  /** Starts a new segment from `seed` (called by the clock at a breakpoint). */
  reseedSegment(seed: number): void {
    this.segment++;
    this.reseed(seed);
  }

  /** A uniform unsigned 32-bit integer. */
  u32(): number {
    const clock = this.clock;
    if (clock !== null) {
      if (clock.calls >= clock.nextBreakAt) clock.fire();
      clock.calls++;
    }
    if (this.observer !== null) this.observer(this.segment, this.calls);
    this.calls++;
    this.totalCalls++;
    const s0 = this.s0;
    const s1 = this.s1;
    const s2 = this.s2;
    const s3 = this.s3;
    const m = Math.imul(s1, 5);
    const r = Math.imul((m << 7) | (m >>> 25), 9);
    const t = s1 << 9;
    const n2 = s2 ^ s0;
    const n3 = s3 ^ s1;
    this.s1 = s1 ^ n2;
    this.s0 = s0 ^ n3;
    this.s2 = n2 ^ t;
    this.s3 = (n3 << 11) | (n3 >>> 21);
    return r >>> 0;
  }

  /** A uniform float in [0, 1) with 32 bits of resolution (one draw). */
  ratio(): number {
    return this.u32() / TWO_POW_32;
  }

  /** `true` with probability `p`; always one draw, so draw counts do not depend on `p`. */
  bool(p: number): boolean {
    return this.ratio() < p;
  }

  /** A uniform integer in [lo, hi) by rejection sampling (no modulo bias, no float path). */
  rangeInt(lo: number, hi: number): number {
    const span = hi - lo;
    if (!(span > 0) || !Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || span > TWO_POW_53) {
      throw new RangeError(`random range must be safe integers with lo < hi and hi - lo <= 2^53, got [${lo}, ${hi})`);
    }
    if (span <= TWO_POW_32) {
      // Same values as `x % span` against `2^32 - 2^32 % span`, without the float modulo (a call
      // into C in V8): x / span < 2^32 is exact enough that floor() gives the true quotient.
      if (span !== this.lastSpan) {
        this.lastSpan = span;
        this.lastLimit = TWO_POW_32 - (TWO_POW_32 - Math.floor(TWO_POW_32 / span) * span);
      }
      const limit = this.lastLimit;
      for (;;) {
        const x = this.u32();
        if (x < limit) return lo + (x - Math.floor(x / span) * span);
      }
    }
    const limit = TWO_POW_53 - (TWO_POW_53 % span);
    for (;;) {
      const x = (this.u32() & 0x1fffff) * TWO_POW_32 + this.u32();
      if (x < limit) return lo + (x % span);
    }
  }

  /** A uniform float in [lo, hi). */
  rangeFloat(lo: number, hi: number): number {
    return lo + (hi - lo) * this.ratio();
  }
}

/**
 * Counts the draws of the streams attached to it and fires a recipe's breakpoints. Its `segment`
 * (breakpoints fired) and `calls` (draws since the last one) locate a discovery: a branch point.
 */
export class DrawClock {
  /** Draws of the attached streams in the current segment. */
  calls = 0;
  /** Breakpoints fired so far. */
  segment = 0;
  nextBreakAt = Infinity;
  private breakpoints: Breakpoint[] = [];
  private firedDraws = 0;

  constructor(
    private readonly sim: RandomStream,
    private readonly schedule: RandomStream | null,
  ) {
    sim.clock = this;
    if (schedule !== null) schedule.clock = this;
  }

  /** Draws of the attached streams in total, across breakpoints. */
  get totalCalls(): number {
    return this.firedDraws + this.calls;
  }

  /**
   * Arms the breakpoints of a recipe. The original form (no `streams`) counts `sim` draws only,
   * so `schedule` is detached; the tagged form counts both streams.
   */
  setBreakpoints(breakpoints: readonly Breakpoint[]): void {
    const tagged = breakpoints.filter((bp) => bp.streams !== undefined).length;
    if (tagged !== 0 && tagged !== breakpoints.length) {
      throw new RangeError(
        "a recipe mixes untagged segments (sim draws) with tagged ones (sim+schedule draws): use one form",
      );
    }
    if (this.schedule !== null) this.schedule.clock = tagged === 0 && breakpoints.length > 0 ? null : this;
    if (tagged > 0 && this.schedule === null && breakpoints.some((bp) => bp.streams !== "sim")) {
      throw new RangeError("this stream has no schedule stream to reseed");
    }
    this.breakpoints = breakpoints.slice();
    this.nextBreakAt = this.breakpoints.length > 0 ? this.breakpoints[0]!.count : Infinity;
  }

  fire(): void {
    const bp = this.breakpoints.shift()!;
    this.nextBreakAt = this.breakpoints.length > 0 ? this.breakpoints[0]!.count : Infinity;
    this.segment++;
    this.firedDraws += this.calls;
    this.calls = 0;
    const streams = bp.streams ?? "sim";
    if (streams !== "schedule") this.sim.reseedSegment(bp.seed);
    // The stream key makes the same seed give `schedule` a sequence independent of `sim`'s.
    if (streams !== "sim") this.schedule!.reseedSegment(bp.seed);
  }
}

/** Stream keys (the ASCII of a short name), so the four streams of one seed are independent. */
export const STREAM_KEYS = {
  sim: 0x6d6f6f6e73696d00n, // "moonsim\0"
  config: 0x6d6f6f6e7377726dn, // "moonswrm"
  schedule: 0x6578656373636864n, // "execschd"
  select: 0x73656c62726e6368n, // "selbrnch"
} as const;

export interface SeedStreams {
  /** Counted; every simulation decision and `ctx.random`. */
  readonly sim: RandomStream;
  /** Swarm masks and randomized configurations. */
  readonly config: RandomStream;
  /** Tiebreaks of same-instant events. */
  readonly schedule: RandomStream;
  /** Start offsets of fair `select`. */
  readonly select: RandomStream;
  /** Counts `sim` and `schedule` draws and fires recipe breakpoints on them. */
  readonly clock: DrawClock;
}

/**
 * A seed's streams; `config` and `select` are seeded at their first use (most seeds draw no swarm
 * mask and run no `select`). Each stream is derived from the seed and its own key alone, so when
 * it is made changes none of its values.
 */
class LazySeedStreams implements SeedStreams {
  readonly sim: RandomStream;
  readonly schedule: RandomStream;
  readonly clock: DrawClock;
  private configStream: RandomStream | null = null;
  private selectStream: RandomStream | null = null;

  constructor(private readonly seed: number) {
    this.sim = new RandomStream(seed, STREAM_KEYS.sim);
    this.schedule = new RandomStream(seed, STREAM_KEYS.schedule);
    this.clock = new DrawClock(this.sim, this.schedule);
  }

  get config(): RandomStream {
    return (this.configStream ??= new RandomStream(this.seed, STREAM_KEYS.config));
  }

  get select(): RandomStream {
    return (this.selectStream ??= new RandomStream(this.seed, STREAM_KEYS.select));
  }
}

export function seedStreams(seed: number): SeedStreams {
  assertSeed(seed);
  return new LazySeedStreams(seed);
}

/** Deterministic seed number `index` of a campaign with `baseSeed`, in 0 ..= MAX_SEED. */
export function deriveSeed(baseSeed: number, index: number): number {
  const base = splitmix64(BigInt(baseSeed)).value;
  const { value } = splitmix64(base ^ BigInt(index));
  return Number(value & BigInt(MAX_SEED));
}
