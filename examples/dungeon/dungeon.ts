/**
 * The dungeon workload: an exploration benchmark with a planted bug at the end of a long chain of
 * rare events (seven keys found at p = 0.03 per search, seven stairs taken, the walker alive all
 * the way down). See game.ts for the rules and the fixed draw budget, README.md for the numbers.
 *
 * The swarm: `dungeonSimulation()` enables `swarmOperations()`, and each seed keeps the moves
 * (op ids 0-7, see `Action`) that `swarmOpEnabled` enables; DownStairs (8) and Search (9) are
 * always kept, since without them no floor can be left and the seed would test nothing. If the
 * mask disables every move, all eight moves come back.
 */
import { assertAlways, swarmOpEnabled, SimulationBuilder, type SimContext, type Workload } from "@moonpool/sim";
import { Action, ACTION_NAMES, Dungeon, MOVE_COUNT, type ActionId, type DungeonResult } from "./game.ts";

export * from "./game.ts";

/** The seed's action alphabet: the swarmed moves, then DownStairs and Search. */
export function swarmedActions(): ActionId[] {
  const moves: ActionId[] = [];
  for (let op = 0; op < MOVE_COUNT; op++) if (swarmOpEnabled(op)) moves.push(op as ActionId);
  if (moves.length === 0) for (let op = 0; op < MOVE_COUNT; op++) moves.push(op as ActionId);
  return [...moves, Action.DownStairs, Action.Search];
}

export interface DungeonOptions {
  /** Default DEFAULT_MAX_STEPS. */
  readonly maxSteps?: number;
  /** The treasure's floor, default FLOORS (8). Fewer only to make the bug easy (tests of the bug path). */
  readonly floors?: number;
}

export class DungeonWorkload implements Workload {
  readonly name = "dungeon";
  /** The last run's game (for tests and benchmarks); null before `run`. */
  dungeon: Dungeon | null = null;
  result: DungeonResult | null = null;

  constructor(private readonly options: DungeonOptions = {}) {}

  async run(ctx: SimContext): Promise<void> {
    const actions = swarmedActions();
    const dungeon = new Dungeon(ctx.random, { ...this.options, actions, trace: ctx.trace });
    this.dungeon = dungeon;
    const result = dungeon.run();
    this.result = result;
    ctx.trace.info("dungeon_done", {
      result,
      steps: dungeon.steps,
      floor: dungeon.level,
      hp: dungeon.hp,
      hasKey: dungeon.hasKey,
      actions: actions.map((a) => ACTION_NAMES[a]).join(","),
    });
    assertAlways(!dungeon.treasureFound, "dungeon bug: treasure found on floor 8");
  }
}

/** The dungeon simulation: a fresh workload per seed and the swarmed action alphabet. */
export function dungeonSimulation(options: DungeonOptions = {}): SimulationBuilder {
  return new SimulationBuilder().workloadFactory(() => new DungeonWorkload(options)).swarmOperations();
}
