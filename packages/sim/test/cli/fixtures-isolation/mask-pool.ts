/**
 * A module-level pool of random bytes, as ws keeps for its frame masks: filled from crypto on
 * first use and consumed across calls, refilled when empty. Whatever a seed leaves in it, the next
 * seed in the same realm takes without drawing.
 */
import { randomFillSync } from "node:crypto";

const pool = new Uint8Array(64);
let offset = pool.length;

/** Four bytes from the pool (refilled from crypto when it runs out). */
export function maskBytes(): Uint8Array {
  if (offset + 4 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.slice(offset, offset + 4);
  offset += 4;
  return bytes;
}
