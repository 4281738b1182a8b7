/**
 * The frontier of one root seed: replayable branch points, and the policy that decides which one
 * the explorer continues next. The policy reads only what assertions report, never anything
 * specific to a workload:
 *
 * - Energy (`entryEnergy`, off by default): every new entry first gets that many continuations
 *   of its own, newest entry first, so a fresh discovery is followed at once, depth first, even
 *   when its rarity measure (a busy bucket's hits, say) makes it look common.
 * - Selection: once no entry has energy left, the entry whose discovered state has been seen the
 *   fewest times so far in the campaign (`AssertionTable.visits`: a bucket's hits, a site's
 *   calls) — the rarest, most novel state. Ties go to the earliest branch point in the run (more
 *   of the run is left to build on the discovery), then to the oldest entry.
 * - Re-branching: an explored entry stays in the frontier. Replaying its prefix visits its state
 *   again, so its rarity decays by itself and a productive sibling soon wins; an entry whose last
 *   `MAX_UNPRODUCTIVE_BATCHES` batches produced no discovery at all is retired.
 * - Revival (`reviveRetired`, off by default): retired entries are kept aside (at most
 *   `maxFrontier`, the most-visited dropped first); when no live entry is left, the explorer can
 *   bring back the rarest one with a new allowance of unproductive batches.
 * - Eviction: beyond `maxFrontier`, the most-visited entry goes (ties: the latest branch point).
 * - Adaptive depth (`adaptive`, the adaptive campaign's frontier): an entry's energy grows with the
 *   depth of the chain it continues (`ADAPTIVE_ENERGY_PER_DEPTH` per reseed point, at most
 *   `ADAPTIVE_MAX_ENERGY`), and a discovery too deep for `maxRecipeLen` doubles the limit (up to
 *   `ADAPTIVE_MAX_RECIPE_LEN`) instead of being dropped: a frontier that keeps gaining depth gets
 *   the energy and the recipe length a long chain needs, without settings (docs/decisions.md D28).
 */
import type { Discovery } from "../chaos/assertions/index.ts";
import type { Recipe } from "../engine/recipe.ts";

/** Batches in a row without any discovery after which an entry is retired. */
export const MAX_UNPRODUCTIVE_BATCHES = 32;
/** Adaptive frontier: energy per reseed point of the chain an entry continues. */
export const ADAPTIVE_ENERGY_PER_DEPTH = 4;
/** Adaptive frontier: the most energy an entry gets. */
export const ADAPTIVE_MAX_ENERGY = 16;
/** Adaptive frontier: the longest recipe the limit may grow to. */
export const ADAPTIVE_MAX_RECIPE_LEN = 512;

/**
 * An adaptive frontier's energy for a new entry: `ADAPTIVE_ENERGY_PER_DEPTH` for a root's own
 * discovery and as much again per reseed point of the chain it continues, and the most for a quality gain or a watermark found by a continuation
 * (progress that rarity alone ranks as common, since its bucket or site is busy).
 */
function adaptiveEnergy(d: Discovery, depth: number): number {
  const progress = d.kind === "betterQuality" || d.kind === "watermark";
  if (progress && depth > 0) return ADAPTIVE_MAX_ENERGY;
  return Math.min(ADAPTIVE_MAX_ENERGY, ADAPTIVE_ENERGY_PER_DEPTH * (depth + 1));
}

export interface FrontierEntry {
  readonly id: number;
  /** The root seed the recipe applies to (one frontier may hold entries of many root seeds). */
  readonly rootSeed: number;
  /** Recipe of the timeline up to the segment the discovery happened in. */
  readonly prefix: Recipe;
  /** Draws made in the last segment when the discovery happened: the branch point. */
  readonly drawCount: number;
  /** Absolute draw index of the branch point in the timeline (replayed draws before it). */
  readonly position: number;
  readonly discovery: Discovery;
  batches: number;
  unproductiveBatches: number;
  childrenSpawned: number;
  /** Continuations left of the entry's own energy; at 0 it is chosen by rarity alone. */
  energy: number;
}

export class Frontier {
  private entries: FrontierEntry[] = [];
  /** Retired entries kept for revival (only when revival is on). */
  private retiredEntries: FrontierEntry[] = [];
  private readonly seen = new Set<string>();
  private nextId = 0;
  evicted = 0;
  retired = 0;
  /** Discoveries that could not become entries because the recipe would be too long. */
  tooDeep = 0;
  revived = 0;
  /** Times an adaptive frontier doubled its recipe limit. */
  recipeLimitRaises = 0;

  constructor(
    private readonly maxFrontier: number,
    /** Reseed points a recipe may hold (an adaptive frontier raises it). */
    public maxRecipeLen: number,
    private readonly visits: (key: string) => number,
    private readonly entryEnergy = 0,
    private readonly keepRetired = false,
    private readonly adaptive = false,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  /** Retired entries waiting for revival. */
  get retiredSize(): number {
    return this.retiredEntries.length;
  }

  /**
   * Adds the discoveries of a timeline of root seed `rootSeed` that ran with `recipe`. Returns
   * how many became entries.
   */
  addDiscoveries(recipe: Recipe, discoveries: readonly Discovery[], rootSeed = 0): number {
    let added = 0;
    for (const d of discoveries) {
      if (d.segment > recipe.length) continue;
      const prefix = recipe.slice(0, d.segment);
      if (prefix.length + 1 > this.maxRecipeLen) {
        if (!this.adaptive || this.maxRecipeLen * 2 > ADAPTIVE_MAX_RECIPE_LEN) {
          this.tooDeep++;
          continue;
        }
        this.maxRecipeLen *= 2;
        this.recipeLimitRaises++;
      }
      let position = d.drawCount;
      for (const bp of prefix) position += bp.count;
      const identity = `${rootSeed}#${prefix.map((bp) => `${bp.count}@${bp.seed}`).join(">")}|${d.drawCount}`;
      if (this.seen.has(identity)) continue;
      this.seen.add(identity);
      this.entries.push({
        id: this.nextId++,
        rootSeed,
        prefix,
        drawCount: d.drawCount,
        position,
        discovery: d,
        batches: 0,
        unproductiveBatches: 0,
        childrenSpawned: 0,
        energy: this.adaptive ? Math.max(this.entryEnergy, adaptiveEnergy(d, prefix.length)) : this.entryEnergy,
      });
      added++;
    }
    while (this.entries.length > this.maxFrontier) this.evictLeastNovel();
    return added;
  }

  /** The entry to explore next (none of `exclude`), or undefined when no entry is left. */
  select(exclude?: ReadonlySet<FrontierEntry>): FrontierEntry | undefined {
    // Entries are kept in discovery order: the last one with energy is the newest.
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      if (e.energy > 0 && exclude?.has(e) !== true) return e;
    }
    return this.rarest(this.entries, exclude);
  }

  /**
   * Brings back the rarest retired entry (ties as in selection) with a new allowance of
   * unproductive batches; undefined when none is kept. The caller explores it next.
   */
  revive(): FrontierEntry | undefined {
    const entry = this.rarest(this.retiredEntries);
    if (entry === undefined) return undefined;
    this.retiredEntries = this.retiredEntries.filter((e) => e !== entry);
    entry.unproductiveBatches = 0;
    this.entries.push(entry);
    this.revived++;
    return entry;
  }

  private rarest(entries: readonly FrontierEntry[], exclude?: ReadonlySet<FrontierEntry>): FrontierEntry | undefined {
    let best: FrontierEntry | undefined;
    let bestVisits = Infinity;
    for (const e of entries) {
      if (exclude?.has(e) === true) continue;
      const v = this.visits(e.discovery.key);
      if (
        best === undefined ||
        v < bestVisits ||
        (v === bestVisits && (e.position < best.position || (e.position === best.position && e.id < best.id)))
      ) {
        best = e;
        bestVisits = v;
      }
    }
    return best;
  }

  /** Records the outcome of one batch of `continuations` continuations of `entry`. */
  recordBatch(entry: FrontierEntry, productive: boolean, continuations: number): void {
    entry.batches++;
    entry.energy = Math.max(0, entry.energy - continuations);
    entry.unproductiveBatches = productive ? 0 : entry.unproductiveBatches + 1;
    if (entry.unproductiveBatches >= MAX_UNPRODUCTIVE_BATCHES) {
      this.entries = this.entries.filter((e) => e !== entry);
      this.retired++;
      if (this.keepRetired) {
        this.retiredEntries.push(entry);
        if (this.retiredEntries.length > this.maxFrontier)
          this.retiredEntries.splice(this.leastNovel(this.retiredEntries), 1);
      }
    }
  }

  /** Drops every entry, live or retired, of `rootSeed` (a root that failed is not continued). */
  dropRoot(rootSeed: number): void {
    this.entries = this.entries.filter((e) => e.rootSeed !== rootSeed);
    this.retiredEntries = this.retiredEntries.filter((e) => e.rootSeed !== rootSeed);
  }

  private evictLeastNovel(): void {
    this.entries.splice(this.leastNovel(this.entries), 1);
    this.evicted++;
  }

  /** Index of the most-visited entry (ties: the latest branch point, then the newest). */
  private leastNovel(entries: readonly FrontierEntry[]): number {
    let worst = 0;
    let worstVisits = -1;
    entries.forEach((e, i) => {
      const v = this.visits(e.discovery.key);
      const w = entries[worst]!;
      if (
        v > worstVisits ||
        (v === worstVisits && (e.position > w.position || (e.position === w.position && e.id > w.id)))
      ) {
        worst = i;
        worstVisits = v;
      }
    });
    return worst;
  }
}
