// A library that keeps references to real-world functions when it loads, as lodash, uuid and lib0 do.
import { randomBytes } from "node:crypto";

const rand = Math.random;
const now = Date.now;
const bytes = randomBytes;

export const captured = {
  random: () => rand(),
  now: () => now(),
  bytes: () => bytes(4),
};
