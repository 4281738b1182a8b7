/**
 * Byte-level helpers of the network faults: flipping bits and splitting reads. Pure functions of
 * their inputs and the `sim` stream, so they are tested on their own.
 */
import type { RandomStream } from "../../engine/rng.ts";

/**
 * Bits one bit-flip fault flips: `clamp(1 + clz32(u), minBits, maxBits)` for a uniform u32 `u`,
 * a power law (1 bit half of the time, 2 bits a quarter, ...), as in moonpool.
 */
export function bitFlipCount(sim: RandomStream, minBits: number, maxBits: number): number {
  return Math.min(maxBits, Math.max(minBits, 1 + Math.clz32(sim.u32())));
}

/**
 * Flips `count` distinct bits of `data` in place (at most every bit once) and returns how many
 * were flipped. Distinct positions matter: two flips of one bit would cancel, and a checksum could
 * not see a fault that changed nothing.
 */
export function flipBits(data: Uint8Array, count: number, sim: RandomStream): number {
  const totalBits = data.length * 8;
  const flips = Math.min(count, totalBits);
  const chosen = new Set<number>();
  while (chosen.size < flips) {
    const bit = sim.rangeInt(0, totalBits);
    if (chosen.has(bit)) continue;
    chosen.add(bit);
    data[bit >>> 3]! ^= 1 << (bit & 7);
  }
  return flips;
}

/**
 * Takes the first `count` bytes out of `chunks` (in order) and returns them; what is left of a
 * split chunk stays at the front as a view, so no byte is lost or reordered.
 */
export function takeBytes(chunks: Uint8Array[], count: number): Uint8Array {
  const out = new Uint8Array(count);
  let at = 0;
  while (at < count) {
    const head = chunks[0]!;
    const need = count - at;
    if (head.length <= need) {
      out.set(head, at);
      at += head.length;
      chunks.shift();
    } else {
      out.set(head.subarray(0, need), at);
      chunks[0] = head.subarray(need);
      at += need;
    }
  }
  return out;
}
