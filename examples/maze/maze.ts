/**
 * The maze: an exploration benchmark with a planted bug behind 20 rare random gates.
 *
 * Four locks (bits 0-3). Opening a lock takes five nested gates in one step, each passed with
 * probability GATE_PROBABILITY (0.05), so a lock opens with probability 0.05^5 ≈ 3e-7 per attempt.
 * Lock 1 can only be attempted once lock 0 is open; lock 3 once locks 0 and 2 are open. The
 * "bug" is all four locks open: with plain random seeds its probability is about (0.05^5)^4,
 * i.e. never. An explorer that branches timelines where an `assertSometimesEach("gate", ...)`
 * bucket is first reached re-rolls one gate at a time (1 in 20) and finds it.
 *
 * Every step draws exactly `1 + gate tests` values from the `sim` stream: one "state mixing"
 * draw, then one draw per gate tested (`randomRatio() < GATE_PROBABILITY`). Nothing else draws.
 * The workload is pure computation: `run` loops synchronously and never awaits.
 */
import {
  assertAlways,
  assertSometimes,
  assertSometimesEach,
  SimulationBuilder,
  type RandomProvider,
  type SimContext,
  type Tracer,
  type Workload,
} from "@moonpool/sim";

/** Chance of passing one gate. */
export const GATE_PROBABILITY = 0.05;
/** Steps per run before giving up. */
export const DEFAULT_MAX_STEPS = 500;
/** Nested gates in front of every lock. */
export const GATES_PER_LOCK = 5;
/** The four lock bits. */
export const ALL_LOCKS = 0b1111;

export type MazeResult = "continue" | "bugFound" | "done";

export interface MazeOptions {
  /** Default DEFAULT_MAX_STEPS. */
  readonly maxSteps?: number;
  /** Default GATE_PROBABILITY; raise it only to make the bug easy (tests of the bug path). */
  readonly gateProbability?: number;
  /** Where to emit the rare facts (`maze_lock_opened`); none by default. */
  readonly trace?: Tracer;
}

/** Locks that must already be open before lock `i` can be attempted. */
const PREREQUISITES: readonly number[] = [
  0b0000, // lock 0: independent
  0b0001, // lock 1: needs lock 0
  0b0000, // lock 2: independent
  0b0101, // lock 3: needs locks 0 and 2
];

function popcount4(bits: number): number {
  return (bits & 1) + ((bits >> 1) & 1) + ((bits >> 2) & 1) + ((bits >> 3) & 1);
}

/** The maze state machine, reusable outside the workload (benchmarks, replay checks). */
export class Maze {
  /** Steps taken so far. */
  steps = 0;
  /** Gate tests made so far (each one is one draw). */
  gateTests = 0;
  /** Open locks, bits 0-3. */
  locks = 0;

  readonly maxSteps: number;
  readonly gateProbability: number;
  private readonly trace: Tracer | undefined;

  /** `random` is the `sim` stream (`ctx.random`). */
  constructor(
    private readonly random: RandomProvider,
    options: MazeOptions = {},
  ) {
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.gateProbability = options.gateProbability ?? GATE_PROBABILITY;
    this.trace = options.trace;
  }

  get allLocksOpen(): boolean {
    return (this.locks & ALL_LOCKS) === ALL_LOCKS;
  }

  /** One gate: exactly one draw. */
  private gate(): boolean {
    this.gateTests++;
    return this.random.randomRatio() < this.gateProbability;
  }

  /** Attempts lock `lock` if it is closed and its prerequisites are open. */
  private attempt(lock: number): void {
    const bit = 1 << lock;
    const needs = PREREQUISITES[lock]!;
    if ((this.locks & bit) !== 0 || (this.locks & needs) !== needs) return;
    // `locks` is the number of open locks when this lock's attempt starts: deeper gates need more.
    const locks = popcount4(this.locks);
    // Gate d guards the assertion of depth d + 1; passing all five opens the lock.
    for (let depth = 1; depth <= GATES_PER_LOCK; depth++) {
      assertSometimesEach("gate", { lock, depth, locks });
      if (!this.gate()) return;
    }
    this.locks |= bit;
    assertSometimesEach("lock opens", { lock, locks });
    this.trace?.info("maze_lock_opened", { lock, step: this.steps });
  }

  /** One step: the mixing draw, then an attempt at each lock in order 0, 1, 2, 3. */
  step(): MazeResult {
    this.steps++;
    this.random.random(); // state mixing: one draw per step, whatever happens
    for (let lock = 0; lock < 4; lock++) this.attempt(lock);
    if (this.allLocksOpen) {
      assertSometimes(true, "all locks open");
      return "bugFound";
    }
    return this.steps >= this.maxSteps ? "done" : "continue";
  }

  /** Steps until the bug is found or the step limit is reached. */
  run(): MazeResult {
    for (;;) {
      const result = this.step();
      if (result !== "continue") return result;
    }
  }
}

/** The workload: one maze per seed, and the planted bug as an always-assertion. */
export class MazeWorkload implements Workload {
  readonly name = "maze";
  /** The last run's maze (for tests and benchmarks); null before `run`. */
  maze: Maze | null = null;
  result: MazeResult | null = null;

  constructor(private readonly options: Omit<MazeOptions, "trace"> = {}) {}

  async run(ctx: SimContext): Promise<void> {
    const maze = new Maze(ctx.random, { ...this.options, trace: ctx.trace });
    this.maze = maze;
    const result = maze.run();
    this.result = result;
    ctx.trace.info("maze_done", { result, steps: maze.steps, gateTests: maze.gateTests, locks: maze.locks });
    assertAlways(result !== "bugFound", "maze bug: all 4 locks opened");
  }
}

/** The maze simulation: one fresh workload per seed, nothing else (iterations are the caller's). */
export function mazeSimulation(options: Omit<MazeOptions, "trace"> = {}): SimulationBuilder {
  return new SimulationBuilder().workloadFactory(() => new MazeWorkload(options));
}
