/**
 * The root seeds of one exploration round shared between this thread and a pool's workers (the
 * builder's `enableExploration({ workers })`, docs/decisions.md D17). Whole roots are handed out
 * one at a time to whoever is free: this thread takes the round's first unstarted root at once and
 * the next one whenever it has finished one; an idle worker takes the last unstarted root. So this
 * thread never waits for a worker while a root of the round is unstarted. Once every root is
 * started, it explores the roots still out on workers itself (the latest handed out first) and
 * keeps whichever outcome comes first: a worker that is slow, starved or hung costs the round no
 * more than this thread's own run of that root. The other run is given up (a worker is terminated
 * and replaced; this thread's exploration stops at its next batch). Every root starts from the
 * round's base table (runner/root-rounds.ts), so the outcome is the same whoever explored it.
 */
import type { AssertionTableState } from "../../chaos/assertions/index.ts";
import type { ExplorationReport } from "../../explore/index.ts";
import type { SeedResult } from "../seed-result.ts";
import type { PoolTask, PoolTaskResults, TaskOutcome } from "./messages.ts";
import { valueOf } from "./worker-check.ts";

export type RootTask = Extract<PoolTask, { kind: "rootSeed" }>;

/** One root's outcome; `table` and `exploration` are null for a root whose worker was lost. */
export interface SharedRootOutcome {
  readonly result: SeedResult;
  readonly table: AssertionTableState | null;
  readonly exploration: ExplorationReport | null;
}

/** What root sharing needs of a pool: its idle workers, a way to give one a root, and to give it up. */
export interface RootPool {
  /** Idle workers ready for a root (asking may start the pool). */
  readonly available: number;
  run(task: RootTask, options: { readonly batch: object }): Promise<TaskOutcome<PoolTaskResults["rootSeed"]>>;
  /** Cancels or terminates the task run with `batch`. */
  abandon(batch: object): void;
}

/** Ends this thread's exploration of a root whose outcome came from elsewhere (or a stopped campaign). */
export class Superseded extends Error {
  constructor() {
    super("this root's outcome is no longer needed here");
  }
}

/**
 * Explores root `index` in this thread from `base`; `superseded()` turns true once the outcome
 * is not needed any more (the exploration may then throw `Superseded` between its batches).
 */
export type ExploreHere = (
  index: number,
  base: AssertionTableState,
  superseded: () => boolean,
) => Promise<SharedRootOutcome>;

interface Root {
  readonly index: number;
  settled: boolean;
  /** Counted in `rootsStarted`. */
  started: boolean;
  /** The task's handle while a worker has the root. */
  batch: object | null;
  /** This thread has taken it (unstarted, or still out on a worker once every root was started). */
  here: boolean;
  resolve(outcome: SharedRootOutcome): void;
  reject(error: unknown): void;
}

interface Round {
  readonly base: AssertionTableState;
  readonly roots: readonly Root[];
  /** Not started yet, in seed order: this thread takes from the front, workers from the back. */
  readonly unstarted: Root[];
  /** Handed to a worker, in the order handed out. */
  readonly posted: Root[];
}

/** Totals over every campaign of this process (benchmarks report how roots were shared). */
export const rootSharingTotals = { fromWorkers: 0, hedgedHere: 0 };

export class RootSharing {
  /** Roots whose outcome came from a worker. */
  rootsFromWorkers = 0;
  /** Roots this thread explored to the end, and those among them that a worker also had. */
  rootsHere = 0;
  rootsHedgedHere = 0;
  /** Roots started so far, by this thread or a worker (each counted once). */
  rootsStarted = 0;
  private round: Round | null = null;
  private stopped = false;
  private hereDone: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: RootPool | null,
    private readonly exploreHere: ExploreHere,
    /** The task that explores root `index` from `base` on a worker. */
    private readonly task: (index: number, base: AssertionTableState) => RootTask,
    /** The failed result of a root whose worker crashed or hung. */
    private readonly lost: (
      index: number,
      outcome: Extract<TaskOutcome<unknown>, { kind: "crashed" | "hung" }>,
    ) => SeedResult,
  ) {}

  /** Starts the roots `indexes` from `base` (this thread begins at once); one promise per index, in order. */
  startRound(indexes: readonly number[], base: AssertionTableState): Promise<SharedRootOutcome>[] {
    const promises: Promise<SharedRootOutcome>[] = [];
    const roots = indexes.map((index) => {
      const root = { index, settled: false, started: false, batch: null, here: false } as Root;
      const promise = new Promise<SharedRootOutcome>((resolve, reject) => {
        root.resolve = resolve;
        root.reject = reject;
      });
      // A round that fails stops at its first root; the rejections of the others are expected.
      promise.catch(() => {});
      promises.push(promise);
      return root;
    });
    const round: Round = { base, roots, unstarted: roots.slice(), posted: [] };
    this.round = round;
    this.offer();
    // An exploration of the previous round superseded by a worker's outcome ends at its next
    // batch: this thread runs one timeline at a time, so the new round starts here after it.
    this.hereDone = this.hereDone.then(() => this.runHere(round));
    return promises;
  }

  /** Hands unstarted roots of the round to idle workers (asking may start the pool). */
  offer(): void {
    const round = this.round;
    if (this.pool === null || round === null || this.stopped) return;
    try {
      while (round.unstarted.length > 0 && this.pool.available > 0) {
        const root = round.unstarted.pop()!;
        const batch = {};
        this.started(root);
        root.batch = batch;
        round.posted.push(root);
        void this.pool.run(this.task(root.index, round.base), { batch }).then((outcome) => {
          if (root.batch === batch) this.fromWorker(round, root, outcome);
        });
      }
    } catch (error) {
      // The pool cannot be used (its workers refused the source): the round fails with that.
      this.fail(round, error);
    }
  }

  /** No root starts any more; resolves once this thread is out of every root's exploration. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const root of this.round?.posted ?? []) if (root.batch !== null) this.pool?.abandon(root.batch);
    await this.hereDone;
  }

  private fromWorker(round: Round, root: Root, outcome: TaskOutcome<PoolTaskResults["rootSeed"]>): void {
    root.batch = null;
    if (root.settled || this.stopped) return;
    switch (outcome.kind) {
      case "done":
        this.rootsFromWorkers++;
        rootSharingTotals.fromWorkers++;
        this.settle(root, outcome.outcome);
        break;
      case "crashed":
      case "hung":
        // Nothing of the root's table came back: the campaign's table stays as if it had not run.
        this.settle(root, { result: this.lost(root.index, outcome), table: null, exploration: null });
        break;
      case "cancelled":
        // The worker was replaced under it: the root goes back to be started again.
        if (!root.here) round.unstarted.unshift(root);
        break;
      case "error":
        try {
          valueOf(outcome, `root seed index ${root.index}`);
        } catch (error) {
          this.fail(round, error);
        }
        return;
    }
    this.offer();
  }

  private started(root: Root): void {
    if (!root.started) this.rootsStarted++;
    root.started = true;
  }

  private settle(root: Root, outcome: SharedRootOutcome): void {
    root.settled = true;
    root.resolve(outcome);
  }

  private fail(round: Round, error: unknown): void {
    this.stopped = true;
    for (const root of round.roots) {
      if (root.settled) continue;
      root.settled = true;
      root.reject(error);
    }
  }

  /** This thread's part of a round: unstarted roots first, then the roots still out on workers. */
  private async runHere(round: Round): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      let root = round.unstarted.shift();
      if (root === undefined) {
        for (const r of round.posted) if (!r.settled && !r.here && r.batch !== null) root = r;
        if (root === undefined) return;
      }
      if (root.settled) continue;
      this.started(root);
      root.here = true;
      const current = root;
      try {
        const outcome = await this.exploreHere(current.index, round.base, () => current.settled || this.stopped);
        if (current.settled) continue;
        this.rootsHere++;
        if (current.batch !== null) {
          this.rootsHedgedHere++;
          rootSharingTotals.hedgedHere++;
          this.pool?.abandon(current.batch);
          current.batch = null;
        }
        this.settle(current, outcome);
      } catch (error) {
        if (error instanceof Superseded) continue;
        this.fail(round, error);
        return;
      }
    }
  }
}
