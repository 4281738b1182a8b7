/**
 * Exploration with worker threads (`enableExploration({ workers: N })`): whole root seeds of a
 * round are shared between this thread and a pool that rebuilds the simulation from
 * `simulationSource(module, export)`, and the outcome — bugs, recipes, statistics, seeds — is
 * identical to `workers: 0`. Whole reports are compared without the wall-clock fields
 * (`wallTimeMs`, `totalWallTimeMs`) and without failure stacks: a stack's text depends on the
 * module loader that compiled the code (Vitest's here, tsx's in the workers: "at <anonymous>
 * (file:line)" vs "at file:line"), not on what the timeline did.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { InvalidConfiguration, SimulationBuilder } from "../src/index.ts";
import { checkWorkerConfiguration } from "../src/runner/pool/worker-check.ts";
import { DeferredPool, setPoolStartPolicy } from "../src/runner/pool/deferred-pool.ts";
import { WorkerPool } from "../src/runner/pool/worker-pool.ts";
import { configFingerprint, fingerprintDifferences } from "../src/runner/config-fingerprint.ts";
import { SAMPLE_CLOCK_CONFIG } from "../src/world/clock-config.ts";
import { DEFAULT_STORAGE_CONFIG } from "../src/world/storage/config.ts";
import { gatedSimulation } from "./fixtures/gated-explore.sim.ts";
import {
  GATED,
  GATED_SETTINGS as SETTINGS,
  reportView,
  startPoolsAtOnce,
  withoutLoaderOrClock,
} from "./worker-outcomes.ts";
import { mazeSimulation } from "../../../examples/maze/maze.ts";

const MAZE = new URL("../../../examples/maze/maze.ts", import.meta.url).href;

const gated = (workers: number, exportName = "gatedSimulation") =>
  gatedSimulation()
    .enableExploration({ ...SETTINGS, workers })
    .simulationSource(GATED, exportName)
    .setDebugSeeds([1, 2, 3])
    .setIterations(3);

startPoolsAtOnce();

/** Open worker threads show up as their MessagePorts among the active resources. */
function openPorts(): number {
  return process.getActiveResourcesInfo().filter((r) => r === "MessagePort").length;
}

describe("exploration with workers: 2", () => {
  it("gives exactly the report of workers: 0 (bugs, recipes, statistics, seeds, failures)", async () => {
    const portsBefore = openPorts();
    const inThread = await gated(0).run();
    const pooled = await gated(2).run();
    const x = inThread.exploration!;
    expect(x.timelines, "the batches really ran").toBeGreaterThan(100);
    expect(x.bugsFound).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(pooled.exploration)).toBe(JSON.stringify(inThread.exploration));
    expect(pooled.seeds.map((s) => s.traceHash)).toEqual(inThread.seeds.map((s) => s.traceHash));
    expect(withoutLoaderOrClock(pooled.seeds.map((s) => s.failures))).toEqual(
      withoutLoaderOrClock(inThread.seeds.map((s) => s.failures)),
    );
    expect(pooled.seeds.some((s) => !s.ok)).toBe(true);
    expect(reportView(pooled)).toEqual(reportView(inThread));
    // The number of workers changes speed, never the outcome: the report leaves it out.
    expect(pooled.exploration!.config).toEqual(SETTINGS);
    expect(openPorts(), "the pool is closed after run()").toBe(portsBefore);
  });

  it("on the maze too (one root seed, a few hundred timelines)", async () => {
    const maze = (workers: number) =>
      mazeSimulation()
        .enableExploration({ workers, maxRunsPerSeed: 400, branchingFactor: 4, maxFrontier: 512, maxRecipeLen: 32 })
        .simulationSource(MAZE, "mazeSimulation")
        .setDebugSeeds([7])
        .setIterations(1);
    const inThread = await maze(0).run();
    const pooled = await maze(2).run();
    expect(inThread.exploration!.timelines).toBe(400);
    expect(JSON.stringify(pooled.exploration)).toBe(JSON.stringify(inThread.exploration));
    expect(reportView(pooled)).toEqual(reportView(inThread));
  });

  it("with several entries per round too: the same report as workers: 0", async () => {
    const rounds = (workers: number) =>
      gatedSimulation()
        .enableExploration({ ...SETTINGS, entriesPerRound: 8, workers })
        .simulationSource(GATED, "gatedSimulation")
        .setDebugSeeds([1, 2])
        .setIterations(2);
    const inThread = await rounds(0).run();
    const pooled = await rounds(2).run();
    expect(pooled.exploration!.config.entriesPerRound).toBe(8);
    expect(pooled.seeds.map((s) => s.traceHash)).toEqual(inThread.seeds.map((s) => s.traceHash));
    expect(reportView(pooled)).toEqual(reportView(inThread));
  });

  it("finds bug recipes that replay to the same failure and trace hash on a fresh builder", async () => {
    const report = await gated(2).run();
    const bugs = report.exploration!.bugRecipes;
    expect(bugs.length).toBeGreaterThan(0);
    for (const bug of bugs) {
      const replay = await gatedSimulation().replayTimeline(bug.seed, bug.recipe).run();
      expect(replay.failedRuns).toBe(1);
      expect(replay.seeds[0]!.traceHash).toBe(bug.traceHash);
      expect(replay.seeds[0]!.failures[0]!.property).toBe("gated bug: three gates passed");
    }
  });

  it("accepts a defineSimulation(...) and a builder instance as the source's export", async () => {
    const expected = JSON.stringify((await gated(0).run()).exploration);
    for (const exportName of ["gatedDefinition", "gatedBuilder"]) {
      expect(JSON.stringify((await gated(2, exportName).run()).exploration), exportName).toBe(expected);
    }
  });
});

describe("exploration with workers: misconfigurations", () => {
  it("workers > 0 without a source says what to add", () => {
    const builder = gatedSimulation().enableExploration({ workers: 2 });
    expect(() => builder.build()).toThrow(InvalidConfiguration);
    expect(() => builder.build()).toThrow(/add \.simulationSource\(import\.meta\.url, "exportName"\)/);
    // workers: 0 needs none, and a replay does not explore.
    expect(gatedSimulation().enableExploration({ workers: 0 }).build().exploration!.workers).toBe(0);
    expect(gatedSimulation().enableExploration({ workers: 2 }).replayTimeline(1).build().exploration).toBeNull();
  });

  it("a source whose export is missing, or is not a simulation, fails the run", async () => {
    // The source is checked in this thread before the first timeline (and again in the workers
    // once the pool starts): the run fails before it explores.
    const portsBefore = openPorts();
    const missing = await gated(2, "noSuchExport")
      .run()
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(InvalidConfiguration);
    expect((missing as Error).message).toMatch(/has no export 'noSuchExport'; its exports: .*gatedSimulation/);
    await expect(gated(2, "notASimulation").run()).rejects.toThrow(
      /export 'notASimulation' is a number; expected a function returning a SimulationBuilder/,
    );
    await expect(gated(2, "returnsNothing").run()).rejects.toThrow(
      /export 'returnsNothing' returned undefined, not a SimulationBuilder/,
    );
    expect(openPorts(), "the pool is closed after a failed run()").toBe(portsBefore);
  });

  it("a module that does not load, or a relative path, is refused clearly", async () => {
    const missing = new URL("./fixtures/no-such-module.sim.ts", import.meta.url).href;
    const run = gatedSimulation()
      .enableExploration({ workers: 1 })
      .simulationSource(missing, "x")
      .setIterations(1)
      .setBaseSeed(1)
      .run();
    await expect(run).rejects.toThrow(/no-such-module\.sim\.ts.*the module failed to load/);
    expect(() =>
      new SimulationBuilder().simulationSource("./fixtures/gated-explore.sim.ts", "gatedSimulation"),
    ).toThrow(/is relative/);
    expect(() => new SimulationBuilder().simulationSource(GATED, "")).toThrow(/exportName must name/);
  });

  it("a source that builds a different simulation than this builder is refused, naming the differences", async () => {
    const error = await gated(2)
      .runTimeBudget(5_000)
      .run()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidConfiguration);
    expect((error as Error).message).toMatch(
      /builds a different simulation than this builder .*runTimeBudgetMs: 5000 vs 3600000/,
    );
  });

  it("clock and storage fault settings count too: a worker would otherwise run other faults silently", () => {
    const plain = configFingerprint(gatedSimulation().build());
    const clocks = configFingerprint(gatedSimulation().clockFaults(SAMPLE_CLOCK_CONFIG).build());
    const storage = configFingerprint(gatedSimulation().storageFaults(DEFAULT_STORAGE_CONFIG).build());
    expect(fingerprintDifferences(clocks, plain).map((d) => d.split(":")[0])).toEqual(["clockFaults"]);
    expect(fingerprintDifferences(storage, plain).map((d) => d.split(":")[0])).toEqual(["storageFaults"]);
    expect(fingerprintDifferences(configFingerprint(gatedSimulation().build()), plain)).toEqual([]);
  });
});

describe("the exploration pool starts on a spare core", () => {
  const config = () => gatedSimulation().simulationSource(GATED, "gatedSimulation").build();
  const source = { module: GATED, export: "gatedSimulation" };

  it("does not start while the machine has no spare core, and starts at once with no threshold", async () => {
    const previous = setPoolStartPolicy({
      minSpareCores: Number.POSITIVE_INFINITY,
      sampleMs: 0,
      minWorkLeftMs: 0,
    });
    const never = new DeferredPool(2, source, config());
    setPoolStartPolicy({ minSpareCores: 0, sampleMs: 0, minWorkLeftMs: 0 });
    const eager = new DeferredPool(2, source, config());
    setPoolStartPolicy(previous);
    try {
      for (let i = 0; i < 3; i++) expect(never.available).toBe(0);
      expect(never.started).toBe(false);
      expect(eager.available, "started, not yet checked").toBe(0);
      expect(eager.started).toBe(true);
      await eager.settle();
      expect(eager.usable()).toBe(true);
      await never.settle();
    } finally {
      await never.close();
      await eager.close();
    }
  });

  it.runIf(process.platform === "linux")(
    "runs its workers at the lowest priority, other pools at the normal one",
    async () => {
      // A thread's nice value is field 19 of /proc/self/task/<tid>/stat (after the command in parentheses).
      const niceThreads = () =>
        readdirSync("/proc/self/task").filter((tid) => {
          const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
          return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16] === "19";
        }).length;
      const before = niceThreads();
      const normal = new WorkerPool(1);
      let low: WorkerPool | undefined;
      try {
        await checkWorkerConfiguration(normal, source, config());
        expect(niceThreads(), "a normal pool's threads").toBe(before);
        low = new WorkerPool(1, { lowPriority: true });
        await checkWorkerConfiguration(low, source, config());
        // The low-priority worker and the loader thread it started.
        expect(niceThreads() - before).toBeGreaterThanOrEqual(1);
        await low.close();
        expect(niceThreads()).toBe(before);
      } finally {
        await normal.close();
        await low?.close();
      }
    },
  );

  it("does not start for a run with less work left than the threshold", async () => {
    const previous = setPoolStartPolicy({ minSpareCores: 0, sampleMs: 0, minWorkLeftMs: 1_000 });
    let leftMs = 500;
    const pool = new DeferredPool(1, source, config(), () => leftMs);
    setPoolStartPolicy(previous);
    try {
      expect(pool.available).toBe(0);
      expect(pool.started).toBe(false);
      leftMs = 5_000;
      expect(pool.available).toBe(0);
      expect(pool.started).toBe(true);
      await pool.settle();
    } finally {
      await pool.close();
    }
  });

  it("a run whose pool never starts gives the same report, and still refuses a bad source", async () => {
    const previous = setPoolStartPolicy({
      minSpareCores: Number.POSITIVE_INFINITY,
      sampleMs: 0,
      minWorkLeftMs: 0,
    });
    try {
      const portsBefore = openPorts();
      const inThread = await gated(0).run();
      const unstarted = await gated(2).run();
      expect(reportView(unstarted)).toEqual(reportView(inThread));
      await expect(gated(2, "noSuchExport").run()).rejects.toThrow(/has no export 'noSuchExport'/);
      await expect(gated(2).runTimeBudget(5_000).run()).rejects.toThrow(/builds a different simulation/);
      expect(openPorts()).toBe(portsBefore);
    } finally {
      setPoolStartPolicy(previous);
    }
  });
});
