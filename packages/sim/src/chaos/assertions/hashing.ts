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

/** One value of an identity, tagged by type so `1` and `"1"` are different buckets. */
export function valueText(value: unknown): string {
  return `${typeof value === "number" ? "n" : typeof value === "boolean" ? "b" : "s"}${String(value)}\u0000`;
}
