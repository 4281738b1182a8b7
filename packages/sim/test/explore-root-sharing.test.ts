/**
 * Root seeds of an exploration round shared between this thread and worker threads
 * (runner/pool/root-sharing.ts), and the rounds every exploring campaign runs
 * (runner/root-rounds.ts): whoever explores a root, its outcome is this thread's. Outcomes are
 * compared without wall-clock fields and failure stacks (a stack's text depends on the module
 * loader that compiled the code, Vitest's here and tsx's in the workers).
 */
import { describe, expect, it } from "vitest";
import { AssertionTable, type AssertionTableState } from "../src/chaos/assertions/index.ts";
import { Campaign } from "../src/runner/campaign.ts";
import { lostSeedResult } from "../src/runner/pool/pool-campaign.ts";
import {
  RootSharing,
  Superseded,
  type ExploreHere,
  type RootPool,
  type RootTask,
  type SharedRootOutcome,
} from "../src/runner/pool/root-sharing.ts";
import { checkWorkerConfiguration } from "../src/runner/pool/worker-check.ts";
import { WorkerPool } from "../src/runner/pool/worker-pool.ts";
import { formatText } from "../src/runner/report-format.ts";
import { SimulationReport as Report } from "../src/runner/report.ts";
import { gatedSimulation } from "./fixtures/gated-explore.sim.ts";
import {
  GATED,
  GATED_SETTINGS as SETTINGS,
  reportView,
  startPoolsAtOnce,
  withoutLoaderOrClock,
} from "./worker-outcomes.ts";

startPoolsAtOnce();

describe("root sharing: whole roots of a round on this thread and the workers", () => {
  const source = { module: GATED, export: "gatedSimulation" };
  // At 120 timelines, root seed 1 passes and seeds 2 and 3 find the gated bug.
  const config = () =>
    gatedSimulation()
      .enableExploration({ ...SETTINGS, maxRunsPerSeed: 120, workers: 0 })
      .simulationSource(GATED, "gatedSimulation")
      .build();
  const empty = new AssertionTable().snapshot();
  // Root index i is root seed i + 1.
  const task = (index: number, base: AssertionTableState): RootTask => ({
    kind: "rootSeed",
    source,
    overrides: { explore: false },
    seed: index + 1,
    baseTable: base,
    exploration: config().exploration!,
  });
  const lost: ConstructorParameters<typeof RootSharing>[3] = (index, outcome) => lostSeedResult(index + 1, outcome);
  const here: ExploreHere = (index, base) => new Campaign(config()).runSingleSeed(index + 1, { baseTable: base });
  /** This thread explores only the roots `indexes`; any other waits until its outcome came from a worker. */
  const onlyHere =
    (indexes: readonly number[]): ExploreHere =>
    async (index, base, superseded) => {
      if (indexes.includes(index)) return here(index, base, superseded);
      while (!superseded()) await new Promise((resolve) => setImmediate(resolve));
      throw new Superseded();
    };
  /** What every thread must return: the roots explored one by one in this thread, each from `base`. */
  const expected = async (count: number, base: AssertionTableState) => {
    const outcomes: SharedRootOutcome[] = [];
    for (let index = 0; index < count; index++) outcomes.push(await here(index, base, () => false));
    return outcomes;
  };
  const reportOf = (outcomes: readonly SharedRootOutcome[]) =>
    new Report({
      results: outcomes.map((o) => o.result),
      table: new AssertionTable(),
      convergenceTimeout: false,
      saturation: null,
      wallTimeMs: 0,
      steppingMode: config().steppingMode,
      exploration: null,
    });

  it("a started pool's workers explore whole roots, with this thread's outcomes (failing roots too)", async () => {
    const pool = new WorkerPool(2);
    try {
      await checkWorkerConfiguration(pool, source, config());
      // Both workers ready (the check's two probes may both have gone to the first one ready).
      while (pool.available < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      const sharing = new RootSharing(pool, onlyHere([0]), task, lost);
      const outcomes = await Promise.all(sharing.startRound([0, 1, 2], empty));
      await sharing.stop();
      expect(sharing.rootsFromWorkers, "roots 2 and 3 came from the workers").toBe(2);
      expect(sharing.rootsHere).toBe(1);
      const want = await expected(3, empty);
      expect(withoutLoaderOrClock(outcomes)).toEqual(withoutLoaderOrClock(want));
      expect(outcomes.map((o) => o.result.traceHash)).toEqual(want.map((o) => o.result.traceHash));
      // A root that failed on a worker fails only that seed, with its recipe and replay call.
      const failing = outcomes.filter((o) => !o.result.ok);
      expect(failing.map((o) => o.result.seed)).toEqual([2, 3]);
      for (const { result } of failing) {
        expect(result.recipe).toBeDefined();
        expect(result.failures[0]!.message).toContain(`[exploration recipe "${result.recipe}"]`);
      }
      // The report names the earliest failing seed of the property with the call that replays it.
      const earliest = failing[0]!.result;
      expect(formatText(reportOf(outcomes))).toContain(`replayTimeline(2, "${earliest.recipe}")`);
    } finally {
      await pool.close();
    }
  });

  it("a worker that never answers does not hold the round: this thread explores its root and gives it up", async () => {
    let posted = 0;
    const abandoned: object[] = [];
    // Two workers that take a root each and hang.
    const silent: RootPool = {
      get available() {
        return 2 - posted;
      },
      run: () => {
        posted++;
        return new Promise(() => {});
      },
      abandon: (batch) => abandoned.push(batch),
    };
    const sharing = new RootSharing(silent, here, task, lost);
    const outcomes = await Promise.all(sharing.startRound([0, 1, 2], empty));
    await sharing.stop();
    expect(posted).toBe(2);
    expect(sharing.rootsFromWorkers).toBe(0);
    expect(sharing.rootsHedgedHere, "both roots out on the silent workers").toBe(2);
    expect(abandoned).toHaveLength(2);
    expect(withoutLoaderOrClock(outcomes)).toEqual(withoutLoaderOrClock(await expected(3, empty)));
  });

  it("a worker that crashes fails only its root, with the cause and the seed's replay call", async () => {
    let posted = 0;
    const crashing: RootPool = {
      get available() {
        return 1 - posted;
      },
      run: async () => {
        posted++;
        await new Promise((resolve) => setImmediate(resolve));
        return { kind: "crashed", cause: "the worker exited with code 1", wallTimeMs: 3, chaos: null };
      },
      abandon: () => {},
    };
    const sharing = new RootSharing(crashing, onlyHere([0, 1]), task, lost);
    const outcomes = await Promise.all(sharing.startRound([0, 1, 2], empty));
    await sharing.stop();
    expect(posted).toBe(1);
    const crashed = outcomes[2]!;
    expect(crashed.result.ok).toBe(false);
    expect(crashed.result.failures.map((f) => f.kind)).toEqual(["workerCrash"]);
    expect(crashed.result.failures[0]!.message).toBe("seed 3 crashed its worker thread: the worker exited with code 1");
    expect(crashed.table, "nothing of its table came back").toBeNull();
    expect(crashed.exploration).toBeNull();
    expect(withoutLoaderOrClock(outcomes.slice(0, 2))).toEqual(
      withoutLoaderOrClock((await expected(2, empty)).slice(0, 2)),
    );
    expect(formatText(reportOf(outcomes))).toContain("replay: builder.setDebugSeeds([3]).setIterations(1).run()");
  });

  it.each([
    ["hangs (a synchronous spin)", "hangsInWorkers", "hedged"],
    ["ends its thread (process.exit)", "exitsInWorkers", "crashed"],
  ] as const)("a real worker whose root %s", async (_what, exportName, expectedEnd) => {
    const pool = new WorkerPool(1);
    const workerSource = { module: GATED, export: exportName };
    try {
      await checkWorkerConfiguration(pool, workerSource, config());
      const sharing = new RootSharing(
        pool,
        onlyHere(expectedEnd === "crashed" ? [0] : [0, 1]),
        (index, base) => ({ ...task(index, base), source: workerSource }),
        lost,
      );
      const outcomes = await Promise.all(sharing.startRound([0, 1], empty));
      await sharing.stop();
      const want = await expected(2, empty);
      expect(withoutLoaderOrClock(outcomes[0])).toEqual(withoutLoaderOrClock(want[0]));
      if (expectedEnd === "hedged") {
        // This thread explored the hung worker's root itself; the worker was terminated.
        expect(sharing.rootsHedgedHere).toBe(1);
        expect(withoutLoaderOrClock(outcomes[1])).toEqual(withoutLoaderOrClock(want[1]));
      } else {
        // The root fails with the cause; the round and the other root go on.
        expect(outcomes[1]!.result.failures.map((f) => f.kind)).toEqual(["workerCrash"]);
        expect(outcomes[1]!.result.failures[0]!.message).toContain("seed 2 crashed its worker thread");
      }
      // The pool replaced the worker and serves tasks again.
      expect((await pool.run({ kind: "fingerprint", source })).kind).toBe("done");
    } finally {
      await pool.close();
    }
  });

  it("starts the next round here only once this thread has left a root a worker settled first", async () => {
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    const outcome = (index: number) =>
      ({ result: { seed: index + 1 }, table: null, exploration: null }) as unknown as SharedRootOutcome;
    let posted = false;
    let answer: ((o: { kind: "done"; outcome: SharedRootOutcome }) => void) | undefined;
    const pool = {
      get available() {
        return posted ? 0 : 1;
      },
      run: () => {
        posted = true;
        return new Promise((resolve) => {
          answer = resolve;
        });
      },
      abandon: () => {},
    } as unknown as RootPool;
    let active = 0;
    let maxActive = 0;
    const exploreHere: ExploreHere = async (index, _base, superseded) => {
      active++;
      maxActive = Math.max(maxActive, active);
      try {
        if (index === 1) {
          // This thread runs the worker's root too; the worker answers first, and this thread
          // notices only a few turns later (at its next batch).
          answer!({ kind: "done", outcome: outcome(1) });
          while (!superseded()) await tick();
          for (let i = 0; i < 5; i++) await tick();
          throw new Superseded();
        }
        for (let i = 0; i < 3; i++) await tick();
        return outcome(index);
      } finally {
        active--;
      }
    };
    const sharing = new RootSharing(pool, exploreHere, task, lost);
    const first = await Promise.all(sharing.startRound([0, 1], empty));
    const second = await Promise.all(sharing.startRound([2, 3], empty));
    await sharing.stop();
    expect(first.map((o) => o.result.seed)).toEqual([1, 2]);
    expect(second.map((o) => o.result.seed)).toEqual([3, 4]);
    expect(sharing.rootsFromWorkers).toBe(1);
    expect(maxActive, "one root at a time in this thread").toBe(1);
  });

  it("without a pool, this thread explores the round's roots in seed order", async () => {
    const order: number[] = [];
    const sharing = new RootSharing(
      null,
      (index, base, superseded) => {
        order.push(index);
        return here(index, base, superseded);
      },
      task,
      lost,
    );
    const outcomes = await Promise.all(sharing.startRound([0, 1, 2], empty));
    await sharing.stop();
    expect(order).toEqual([0, 1, 2]);
    expect(sharing.rootsStarted).toBe(3);
    expect(withoutLoaderOrClock(outcomes)).toEqual(withoutLoaderOrClock(await expected(3, empty)));
  });
});

describe("exploration rounds on every path", () => {
  it("a campaign explores each root from its round's table: the first round from empty, the next after it", async () => {
    // 9 roots: a round of 8, then one of 1 that starts from the first round's merged table.
    const seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    const config = gatedSimulation()
      .enableExploration({ ...SETTINGS, maxRunsPerSeed: 60 })
      .setDebugSeeds(seeds)
      .setIterations(seeds.length)
      .build();
    const report = await new Campaign(config).run();
    const table = new AssertionTable();
    const empty = table.snapshot();
    const firstRound = [];
    for (const seed of seeds.slice(0, 8))
      firstRound.push(await new Campaign(config).runSingleSeed(seed, { baseTable: empty }));
    for (const outcome of firstRound) table.absorb(outcome.table, empty);
    const last = await new Campaign(config).runSingleSeed(9, { baseTable: table.snapshot() });
    const byRounds = [...firstRound, last];
    expect(report.seeds.map((s) => s.traceHash)).toEqual(byRounds.map((o) => o.result.traceHash));
    expect(report.exploration!.perSeed).toEqual(byRounds.map((o) => o.exploration!.perSeed[0]));
    // Root 9 from an empty table explores differently: the first round's coverage steered it.
    const alone = await new Campaign(config).runSingleSeed(9, { baseTable: empty });
    expect(JSON.stringify(alone.exploration)).not.toBe(JSON.stringify(last.exploration));
  });

  it("a stop rule ends the campaign at the same root with 0 and 2 workers, mid-round", async () => {
    const campaign = (workers: number) =>
      gatedSimulation()
        .enableExploration({ ...SETTINGS, maxRunsPerSeed: 40, workers })
        .simulationSource(GATED, "gatedSimulation")
        .setBaseSeed(7)
        .untilCoverageStable(3, 40)
        .run();
    const inThread = await campaign(0);
    const pooled = await campaign(2);
    expect(inThread.seeds.length).toBeLessThan(40);
    expect(inThread.seeds.length % 8, "the stop falls inside a round").not.toBe(0);
    expect(inThread.exploration!.perSeed).toHaveLength(inThread.seeds.length);
    expect(reportView(pooled)).toEqual(reportView(inThread));
  });

  it("a multi-root campaign: workers 0 and 2 identical, the same seeds twice identical, other seeds differ", async () => {
    const campaign = (workers: number, first: number) =>
      gatedSimulation()
        .enableExploration({ ...SETTINGS, maxRunsPerSeed: 120, workers })
        .simulationSource(GATED, "gatedSimulation")
        .setDebugSeeds(Array.from({ length: 10 }, (_, i) => first + i))
        .setIterations(10)
        .run();
    const a = await campaign(0, 1);
    const again = await campaign(0, 1);
    const pooled = await campaign(2, 1);
    const other = await campaign(0, 11);
    expect(a.exploration!.timelines).toBe(1200);
    expect(again.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(JSON.stringify(again.exploration)).toBe(JSON.stringify(a.exploration));
    expect(reportView(pooled)).toEqual(reportView(a));
    expect(other.seeds.map((s) => s.traceHash)).not.toEqual(a.seeds.map((s) => s.traceHash));
    expect(JSON.stringify(other.exploration!.perSeed)).not.toBe(JSON.stringify(a.exploration!.perSeed));
  });
});
