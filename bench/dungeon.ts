/**
 * The dungeon at a large budget: root seeds explored one after another, each in its own campaign,
 * with the dungeon settings below, DUNGEON_BUDGET_DEFAULT timelines each
 * (MOONPOOL_BENCH_DUNGEON_BUDGET and MOONPOOL_BENCH_DUNGEON_ROOTS, e.g. "1,2,3", change them).
 * Per root: the first failing timeline, failing timelines in all, the deepest floor, dry spells
 * (from a selection that found no live entry after some had retired, to the next batch that
 * added an entry): the first one's start, how many, and the longest one; revived entries, fresh
 * timelines and wall time. A progress line goes to stderr every 10,000 timelines.
 *
 * Dry spells and progress lines come from watching the frontier (outside the simulation): the
 * report keeps only a thinned series of frontier sizes.
 */
import type { SimulationReport } from "../packages/sim/src/index.ts";
import { Frontier } from "../packages/sim/src/internal.ts";
import { dungeonSimulation, DungeonWorkload } from "../examples/dungeon/dungeon.ts";

/** The dungeon's exploration settings (examples/dungeon/README.md says why each is needed). */
export const DUNGEON_EXPLORATION = {
  workers: 0,
  branchingFactor: 4,
  maxFrontier: 512,
  /** Eight floors of rooms, keys, stairs and descents need more reseed points than the default 32. */
  maxRecipeLen: 120,
  /** Progress shows mostly as better quality in busy buckets, which rarity alone ranks as common. */
  entryEnergy: 16,
  /** Entries near the end of the chain retire before it is finished; a dry frontier brings them back. */
  reviveRetired: true,
} as const;
/** Timelines per root: the per-seed budget the dungeon's README compares against (about 268,000). */
const DUNGEON_BUDGET_DEFAULT = 268_000;
const PROGRESS_EVERY = 10_000;
/** The dungeon's depth signal: its numeric watermark's best left operand is the floor index. */
export const DUNGEON_DEPTH_ASSERTION = "dungeon level reached";
/** The planted bug's always-assertion: its failures count the failing timelines. */
export const DUNGEON_BUG_ASSERTION = "dungeon bug: treasure found on floor 8";

function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} '${text}': expected a positive integer`);
  return n;
}

function settings(): { budget: number; roots: number[] } {
  const budgetText = process.env.MOONPOOL_BENCH_DUNGEON_BUDGET;
  const rootsText = process.env.MOONPOOL_BENCH_DUNGEON_ROOTS;
  const budget =
    budgetText === undefined || budgetText === ""
      ? DUNGEON_BUDGET_DEFAULT
      : positiveInt("MOONPOOL_BENCH_DUNGEON_BUDGET", budgetText);
  const roots =
    rootsText === undefined || rootsText === ""
      ? [1, 2, 3]
      : rootsText.split(",").map((t) => positiveInt("MOONPOOL_BENCH_DUNGEON_ROOTS", t.trim()));
  return { budget, roots };
}

export function assertionFigure(report: SimulationReport, message: string, figure: "watermark" | "failCount") {
  return report.assertionDetails.find((d) => d.message === message)?.[figure] ?? null;
}

/** Watches the frontier: timelines run so far (counted by the workload) and the first dry-up. */
class Watch {
  timelines = 0;
  dryAt: number | null = null;
  drySpells = 0;
  /** [start, end) in timelines of the longest dry spell. */
  longestDrySpell: [number, number] | null = null;
  private spellStart: number | null = null;
  private lastProgress = 0;
  private deepest = 0;
  private readonly start = performance.now();

  constructor(private readonly root: number) {}

  onTimeline(floor: number): void {
    this.timelines++;
    if (floor > this.deepest) this.deepest = floor;
  }

  onAdded(added: number): void {
    if (added > 0) this.endSpell();
  }

  /** Ends the running dry spell, if any, at the current timeline. */
  endSpell(): void {
    if (this.spellStart === null) return;
    const longest = this.longestDrySpell;
    if (longest === null || this.timelines - this.spellStart > longest[1] - longest[0])
      this.longestDrySpell = [this.spellStart, this.timelines];
    this.spellStart = null;
  }

  onSelect(frontier: Frontier, selected: boolean): void {
    if (!selected && this.spellStart === null && frontier.retired > 0) {
      this.spellStart = this.timelines;
      this.drySpells++;
      this.dryAt ??= this.timelines;
    }
    if (this.timelines - this.lastProgress >= PROGRESS_EVERY) {
      this.lastProgress = this.timelines - (this.timelines % PROGRESS_EVERY);
      const sec = Math.round((performance.now() - this.start) / 1000);
      console.error(
        `  root ${this.root}: ${this.timelines} timelines, deepest floor ${this.deepest}, frontier ` +
          `${frontier.size} live / ${frontier.retiredSize} retired, dry at ${this.dryAt ?? "-"}, ${sec} s`,
      );
    }
  }
}

export async function benchDungeon(): Promise<Record<string, unknown>> {
  const { budget, roots } = settings();
  let watch: Watch | null = null;
  const run = DungeonWorkload.prototype.run;
  DungeonWorkload.prototype.run = async function (this: DungeonWorkload, ctx) {
    try {
      await run.call(this, ctx);
    } finally {
      watch?.onTimeline(this.dungeon?.level ?? 0);
    }
  };
  const { select, addDiscoveries } = Frontier.prototype;
  Frontier.prototype.select = function (this: Frontier, exclude) {
    const entry = select.call(this, exclude);
    watch?.onSelect(this, entry !== undefined);
    return entry;
  };
  Frontier.prototype.addDiscoveries = function (this: Frontier, recipe, discoveries) {
    const added = addDiscoveries.call(this, recipe, discoveries);
    watch?.onAdded(added);
    return added;
  };
  const perRoot: Record<string, unknown>[] = [];
  try {
    for (const root of roots) {
      console.error(`dungeon: root ${root}, ${budget} timelines`);
      watch = new Watch(root);
      const start = performance.now();
      const report = await dungeonSimulation()
        .enableExploration({ ...DUNGEON_EXPLORATION, maxRunsPerSeed: budget })
        .setDebugSeeds([root])
        .setIterations(1)
        .run();
      const x = report.exploration!;
      watch.endSpell();
      const figures = {
        root,
        timelines: x.timelines,
        firstBugAtTimeline: x.perSeed[0]!.firstBugAtTimeline,
        bugTimelines: assertionFigure(report, DUNGEON_BUG_ASSERTION, "failCount") ?? 0,
        distinctBugs: x.bugsFound,
        deepestFloor: assertionFigure(report, DUNGEON_DEPTH_ASSERTION, "watermark"),
        frontierDryAt: watch.dryAt,
        drySpells: watch.drySpells,
        longestDrySpell: watch.longestDrySpell,
        entriesRetired: x.entriesRetired,
        entriesRevived: x.entriesRevived,
        freshTimelines: x.freshTimelines,
        wallSec: Math.round((performance.now() - start) / 1000),
      };
      console.error(`  ${JSON.stringify(figures)}`);
      perRoot.push(figures);
    }
  } finally {
    DungeonWorkload.prototype.run = run;
    Frontier.prototype.select = select;
    Frontier.prototype.addDiscoveries = addDiscoveries;
  }
  return {
    dungeonBudgetPerRoot: budget,
    settings: DUNGEON_EXPLORATION,
    rootsFound: perRoot.filter((r) => r.firstBugAtTimeline !== null).length,
    perRoot,
  };
}
