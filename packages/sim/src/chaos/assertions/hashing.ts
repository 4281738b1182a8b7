/** The string hashes behind sometimes-all combinations and sometimes-each bucket keys. */

export const FNV_OFFSET_32 = 0x811c9dc5;
const FNV_PRIME_32 = 0x01000193;
export const MIX_OFFSET_32 = 0x9747b28c;
export const TWO_POW_21 = 2097152;

/** FNV-1a 32 over the UTF-16 code units of `text`, continuing from `hash`. */
export function fnv1a(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME_32);
  }
  return h >>> 0;
}

/** A second, independent 32-bit string hash (multiply-rotate per code unit). */
export function mixHash(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x5bd1e995);
    h = (h << 13) | (h >>> 19);
  }
  return h >>> 0;
}

/** murmur3 finaliser: spreads every input bit over the output. */
export function fmix32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * `fmix32` as a signed 32-bit integer (`fmix32(v) === fmix32Signed(v) >>> 0`): small integers
 * stay unboxed on the hot path, where an unsigned result above 2^31 would allocate.
 */
export function fmix32Signed(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** One value of an identity, tagged by type so `1` and `"1"` are different buckets. */
export function valueText(value: unknown): string {
  return `${typeof value === "number" ? "n" : typeof value === "boolean" ? "b" : "s"}${String(value)}\u0000`;
}

const MIX_PRIME_32 = 0x5bd1e995;
/** Integers below this print in plain decimal (`String` switches to exponents at 1e21). */
const PLAIN_INTEGER_LIMIT = 1e15;

/**
 * Both bucket hashes of an identity, fed value by value without building the strings
 * `valueText` describes: the same hashes as `fnv1a`/`mixHash` over those strings.
 */
export class IdentityHasher {
  h1 = 0;
  h2 = 0;

  /** Kept as signed 32-bit integers so the fields never hold boxed numbers. */
  start(h1: number, h2: number): void {
    this.h1 = h1 | 0;
    this.h2 = h2 | 0;
  }

  private unit(code: number): void {
    this.h1 = Math.imul(this.h1 ^ code, FNV_PRIME_32);
    const h = Math.imul(this.h2 ^ code, MIX_PRIME_32);
    this.h2 = (h << 13) | (h >>> 19);
  }

  text(text: string): void {
    for (let i = 0; i < text.length; i++) this.unit(text.charCodeAt(i));
  }

  /** The code units of `valueText(value)`. */
  value(value: unknown): void {
    if (typeof value === "number") {
      this.unit(110); // "n"
      // Small counters and indexes are by far the most common identity values.
      if (value >= 0 && value <= 0x3fffffff && (value | 0) === value) this.smallInteger(value);
      else if (Number.isInteger(value) && Math.abs(value) < PLAIN_INTEGER_LIMIT) this.integer(value);
      else this.text(String(value));
    } else if (typeof value === "boolean") {
      this.unit(98); // "b"
      this.text(value ? "true" : "false");
    } else {
      this.unit(115); // "s"
      this.text(typeof value === "string" ? value : String(value));
    }
    this.unit(0);
  }

  /** Final hashes (unsigned). */
  get hash1(): number {
    return this.h1 >>> 0;
  }

  get hash2(): number {
    return this.h2 >>> 0;
  }

  /** The decimal digits of a non-negative 30-bit integer, in integer arithmetic. */
  private smallInteger(value: number): void {
    let place = 1;
    while (place * 10 <= value) place *= 10;
    let v = value;
    for (; place > 0; place = (place / 10) | 0) {
      const digit = (v / place) | 0;
      this.unit(48 + digit);
      v -= digit * place;
    }
  }

  private integer(value: number): void {
    let v = value;
    if (v < 0) {
      this.unit(45); // "-"
      v = -v;
    }
    let place = 1;
    while (place * 10 <= v) place *= 10;
    for (; place >= 1; place /= 10) {
      const digit = Math.floor(v / place);
      this.unit(48 + digit);
      v -= digit * place;
    }
  }
}
