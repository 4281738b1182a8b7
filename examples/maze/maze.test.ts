import { describe, expect, it } from "vitest";
import { SimulationBuilder, type RandomProvider } from "@moonpool/sim";
import { DEFAULT_MAX_STEPS, GATE_PROBABILITY, Maze, MazeWorkload, mazeSimulation } from "./maze.ts";

const BUG = "maze bug: all 4 locks opened";

/** A scripted stream: `randomRatio` answers from `ratios` in turn (then 0.99), `random` 0. */
class ScriptedRandom implements RandomProvider {
  draws = 0;
  private next = 0;
  constructor(private readonly ratios: readonly number[]) {}
  random(): number {
    this.draws++;
    return 0;
  }
  randomRatio(): number {
    this.draws++;
    return this.ratios[this.next++] ?? 0.99;
  }
  randomRange(): number {
    throw new Error("the maze never calls randomRange");
  }
  randomBool(): boolean {
    throw new Error("the maze never calls randomBool");
  }
}

describe("maze example", () => {
  it("300 plain random seeds never open all four locks, and deeper gates are rarer", async () => {
    const report = await mazeSimulation().setBaseSeed(1).setIterations(300).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(report.assertionViolations).toEqual([]);
    const bug = report.assertionDetails.find((d) => d.message === BUG)!;
    expect(bug.status).toBe("PASS");
    expect(bug.passCount).toBe(300);
    // Never reached, so not even registered.
    expect(report.assertionDetails.find((d) => d.message === "all locks open")).toBeUndefined();

    const gates = report.bucketSummaries.find((s) => s.message === "gate")!;
    const hitsAtDepth = [0, 0, 0, 0, 0, 0];
    for (const bucket of gates.buckets) hitsAtDepth[bucket.identity.depth as number]! += bucket.hits;
    // Each gate passes 1 time in 20: depth 1 about 400 times as often as depth 3.
    expect(hitsAtDepth[3]).toBeGreaterThan(0);
    expect(hitsAtDepth[1]).toBeGreaterThan(100 * hitsAtDepth[3]!);
    expect(hitsAtDepth[1]).toBeGreaterThan(hitsAtDepth[2]!);
    expect(hitsAtDepth[2]).toBeGreaterThan(hitsAtDepth[3]!);
    expect(hitsAtDepth[3]).toBeGreaterThan(hitsAtDepth[4]!);
    // Lock 3 needs locks 0 and 2: without them it is never even attempted.
    for (const bucket of gates.buckets)
      if (bucket.identity.lock === 3) expect(bucket.identity.locks).toBeGreaterThanOrEqual(2);

    // Draws: one per step (500 steps per seed) plus one per gate test, and every gate test is
    // preceded by exactly one "gate" assertion.
    const draws = report.seeds.reduce((sum, s) => sum + s.simDraws, 0);
    expect(draws).toBe(300 * DEFAULT_MAX_STEPS + gates.totalHits);
  });

  it("draws exactly one value per step plus one per gate test, in every seed", async () => {
    const workloads: MazeWorkload[] = [];
    const report = await new SimulationBuilder()
      .workloadFactory(() => {
        const workload = new MazeWorkload();
        workloads.push(workload);
        return workload;
      })
      .setBaseSeed(7)
      .setIterations(20)
      .run();
    expect(workloads).toHaveLength(20);
    report.seeds.forEach((seed, i) => {
      const maze = workloads[i]!.maze!;
      expect(workloads[i]!.result).toBe("done");
      expect(maze.steps).toBe(DEFAULT_MAX_STEPS);
      expect(maze.gateTests).toBeGreaterThanOrEqual(DEFAULT_MAX_STEPS); // lock 0 is tried every step
      expect(seed.simDraws).toBe(maze.steps + maze.gateTests);
    });
  });

  it("follows the lock order: with every gate passing, one step opens 0, 1, 2, 3 in 21 draws", () => {
    const maze = new Maze(new ScriptedRandom(new Array(20).fill(0)));
    expect(maze.run()).toBe("bugFound");
    expect(maze.steps).toBe(1);
    expect(maze.gateTests).toBe(20);
    expect(maze.locks).toBe(0b1111);
  });

  it("tests exactly the gates it reaches: a failed gate ends the lock's attempt", () => {
    // Lock 0: pass, pass, fail (3 tests). Lock 2: fail (1 test). Locks 1 and 3 are not tried.
    const random = new ScriptedRandom([0, 0, GATE_PROBABILITY, 0.5]);
    const maze = new Maze(random, { maxSteps: 1 });
    expect(maze.run()).toBe("done");
    expect(maze.gateTests).toBe(4);
    expect(random.draws).toBe(1 + 4);
    expect(maze.locks).toBe(0);
  });

  it("runs the same seeds to identical trace hashes and draws, and different seeds to different ones", async () => {
    const first = await mazeSimulation().setBaseSeed(42).setIterations(10).run();
    const second = await mazeSimulation().setBaseSeed(42).setIterations(10).run();
    expect(second.seedsUsed).toEqual(first.seedsUsed);
    expect(second.seeds.map((s) => s.traceHash)).toEqual(first.seeds.map((s) => s.traceHash));
    expect(second.seeds.map((s) => s.simDraws)).toEqual(first.seeds.map((s) => s.simDraws));
    expect(new Set(first.seeds.map((s) => s.traceHash)).size).toBe(10);
  });

  it("reports the planted bug as an always failure when the gates are easy, and the seed replays", async () => {
    const report = await mazeSimulation({ gateProbability: 0.5 }).setBaseSeed(3).setIterations(5).run();
    expect(report.failedRuns).toBe(5);
    expect(report.assertionViolations.join("\n")).toContain(BUG);
    expect(report.assertionDetails.find((d) => d.message === "all locks open")?.status).toBe("PASS");
    const failing = report.seeds[0]!;
    const replay = await mazeSimulation({ gateProbability: 0.5 }).setDebugSeeds([failing.seed]).setIterations(1).run();
    expect(replay.seeds[0]!.traceHash).toBe(failing.traceHash);
    expect(replay.seeds[0]!.simDraws).toBe(failing.simDraws);
    expect(replay.seeds[0]!.failures).toEqual(failing.failures.map((f) => ({ ...f })));
  });
});
