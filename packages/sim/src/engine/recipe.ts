/**
 * Recipes: how a timeline departs from its root seed. A recipe is a list of reseed points,
 * `streams:count@seed`: after `count` draws of the current segment, the named streams are
 * reseeded with `seed`. `streams` is `sim`, `schedule` (the order of same-instant events) or
 * `sim+schedule`, and then `count` counts the draws of both streams. The untagged form
 * `count@seed` counts and reseeds `sim` only (recipes written before schedules were explorable
 * keep replaying). Text: `"sim+schedule:151@8837201 -> schedule:80@1293847"`; the empty string is
 * the root timeline itself.
 */
import { MoonpoolError } from "@moonpool/core";
import { MAX_SEED, type Breakpoint, type BreakpointStreams } from "./rng.ts";

/** A recipe string that cannot be parsed; the message names the bad segment. */
export class RecipeParseError extends MoonpoolError {}

export type Recipe = readonly Breakpoint[];

export function formatRecipe(recipe: Recipe): string {
  return recipe.map((bp) => `${bp.streams === undefined ? "" : `${bp.streams}:`}${bp.count}@${bp.seed}`).join(" -> ");
}

const STREAM_TAGS: readonly BreakpointStreams[] = ["sim", "schedule", "sim+schedule"];

const INTEGER = /^\d+$/;

export function parseRecipe(text: string): Recipe {
  if (typeof text !== "string")
    throw new RecipeParseError(`a recipe must be a string like "151@8837201 -> 80@1293847", got ${typeof text}`);
  const trimmed = text.trim();
  if (trimmed === "") return [];
  const recipe = trimmed.split("->").map((raw, i): Breakpoint => {
    let segment = raw.trim();
    const where = `segment ${i + 1} ("${segment}") of recipe "${trimmed}"`;
    let streams: BreakpointStreams | undefined;
    const colon = segment.indexOf(":");
    if (colon >= 0) {
      const tag = segment.slice(0, colon).trim();
      streams = STREAM_TAGS.find((t) => t === tag);
      if (streams === undefined)
        throw new RecipeParseError(`unknown streams '${tag}' in ${where}: one of ${STREAM_TAGS.join(", ")}`);
      segment = segment.slice(colon + 1).trim();
    }
    const at = segment.indexOf("@");
    if (at < 0) throw new RecipeParseError(`missing '@' in ${where}: each segment is count@seed`);
    const countText = segment.slice(0, at).trim();
    const seedText = segment.slice(at + 1).trim();
    if (!INTEGER.test(countText) || !Number.isSafeInteger(Number(countText))) {
      throw new RecipeParseError(`invalid count '${countText}' in ${where}: a non-negative integer number of draws`);
    }
    if (!INTEGER.test(seedText) || Number(seedText) > MAX_SEED) {
      throw new RecipeParseError(`invalid seed '${seedText}' in ${where}: a non-negative integer up to ${MAX_SEED}`);
    }
    return streams === undefined
      ? { count: Number(countText), seed: Number(seedText) }
      : { count: Number(countText), seed: Number(seedText), streams };
  });
  const tagged = recipe.filter((bp) => bp.streams !== undefined).length;
  if (tagged !== 0 && tagged !== recipe.length) {
    throw new RecipeParseError(
      `recipe "${trimmed}" mixes untagged segments (count@seed, sim draws) with tagged ones (streams:count@seed): use one form`,
    );
  }
  return recipe;
}

/** Checks a recipe given in its parsed form (an array of `{ count, seed }`) as `parseRecipe` checks text. */
export function checkRecipe(recipe: unknown): Recipe {
  if (!Array.isArray(recipe))
    throw new RecipeParseError(
      `a recipe is a string like "151@8837201 -> 80@1293847" or an array of { count, seed }, got ${typeof recipe}`,
    );
  return recipe.map((step: unknown, i) => {
    const where = `step ${i + 1} of the recipe (${JSON.stringify(step)})`;
    if (step === null || typeof step !== "object")
      throw new RecipeParseError(`${where}: each step is an object { count, seed }`);
    const { count, seed } = step as { count?: unknown; seed?: unknown };
    if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0)
      throw new RecipeParseError(`${where}: count must be a non-negative integer number of draws`);
    if (typeof seed !== "number" || !Number.isSafeInteger(seed) || seed < 0 || seed > MAX_SEED) {
      throw new RecipeParseError(`${where}: seed must be a non-negative integer up to ${MAX_SEED}`);
    }
    return { count, seed };
  });
}

const FNV64_OFFSET = 0xcbf29ce484222325n;
const MASK_64 = (1n << 64n) - 1n;

const TWO_POW_32 = 4294967296;

/** The two 32-bit halves of an FNV-1a 64 state, as `fnv64Halves` leaves them. */
let fnvLo = 0;
let fnvHi = 0;

/**
 * FNV-1a 64 over the bytes (low, high) of each UTF-16 code unit, continuing from the state
 * (`lo`, `hi`), on two 32-bit halves (BigInt per byte was a visible share of an exploration's
 * time); the result is left in `fnvLo`/`fnvHi`. The prime is 2^40 + 0x1b3, so `h * prime` is
 * `h * 0x1b3 + (low half << 40)` modulo 2^64.
 */
function fnv64Halves(lo0: number, hi0: number, text: string): void {
  let lo = lo0;
  let hi = hi0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    for (let b = 0; b < 2; b++) {
      lo = (lo ^ (b === 0 ? code & 0xff : code >> 8)) >>> 0;
      // lo * 0x1b3 < 2^41: exact in a double; its high part carries into `hi`.
      const loProduct = lo * 0x1b3;
      const carry = Math.floor(loProduct / TWO_POW_32);
      const newLo = loProduct - carry * TWO_POW_32;
      hi = (Math.imul(hi, 0x1b3) + carry + ((lo << 8) >>> 0)) >>> 0;
      lo = newLo;
    }
  }
  fnvLo = lo;
  fnvHi = hi;
}

const FNV64_OFFSET_LO = Number(FNV64_OFFSET & 0xffffffffn);
const FNV64_OFFSET_HI = Number(FNV64_OFFSET >> 32n);

/**
 * The hash state after `${rootSeed}|${parent's points}|`, per parent recipe: every child of a
 * frontier entry shares its parent, whose text grows with its depth.
 */
const prefixStates = new WeakMap<Recipe, { readonly rootSeed: number; readonly lo: number; readonly hi: number }>();

/**
 * The seed of the `childIndex`-th continuation branched at `coordinate` of a timeline: derived
 * from the root seed, the parent recipe's reseed points and the branch point, so different marks
 * get different children. Which streams the parent's segments reseed does not enter: a branch's
 * seed depends on where it branches.
 */
export function childSeed(rootSeed: number, parent: Recipe, branchAt: string, childIndex: number): number {
  // FNV-1a 64 of `${rootSeed}|${points}|${branchAt}|${childIndex}`, the shared prefix hashed once.
  let prefix = prefixStates.get(parent);
  if (prefix === undefined || prefix.rootSeed !== rootSeed) {
    const points = parent.map((bp) => `${bp.count}@${bp.seed}`).join(" -> ");
    fnv64Halves(FNV64_OFFSET_LO, FNV64_OFFSET_HI, `${rootSeed}|${points}|`);
    prefix = { rootSeed, lo: fnvLo, hi: fnvHi };
    prefixStates.set(parent, prefix);
  }
  fnv64Halves(prefix.lo, prefix.hi, `${branchAt}|${childIndex}`);
  let h = (BigInt(fnvHi) << 32n) | BigInt(fnvLo);
  // A final avalanche so neighbouring child indexes land far apart.
  h ^= h >> 33n;
  h = (h * 0xff51afd7ed558ccdn) & MASK_64;
  h ^= h >> 33n;
  return Number(h & BigInt(MAX_SEED));
}
