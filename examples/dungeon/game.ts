/**
 * The dungeon game engine: an 8-floor roguelike driven by a random walker, instrumented with
 * guidance assertions. Pure computation over a `RandomProvider`; `dungeon.ts` runs it as a
 * workload.
 *
 * The world: floors of WIDTH x HEIGHT tiles with 4-6 rectangular rooms joined left to right by
 * L-shaped corridors. The walker starts in the leftmost room; the stairs (floors 1-7) or the
 * treasure (floor 8) sit in the centre of the rightmost room. Each of floors 1-7 hides a key in
 * the centre of one middle room: a Search there finds it with probability KEY_FIND_PROBABILITY,
 * and the stairs only open with the key. Monsters wander and hit for 1-2 hp; traps cost 1 hp,
 * potions heal 2 (at most MAX_HP). At 0 hp the run ends. Searching the treasure is the planted
 * bug.
 *
 * Fixed draw budget (what keeps an exploration recipe's coordinates meaningful): the first floor
 * costs exactly 1 draw, then every step costs exactly DRAWS_PER_STEP = 4 `sim` draws, whatever
 * the walker does:
 *   1. `random()`: the fresh action (an index into the swarmed alphabet);
 *   2. `randomRatio()`: keep the last action (habit, REPEAT_ACTION_PROBABILITY) or take the fresh one;
 *   3. `randomRatio()`: the key roll, used only when searching the key tile without the key;
 *   4. `random()`: the step's world seed, which drives a small local generator for monster moves,
 *      damage rolls and, on descending, the next floor's layout.
 * So a run of `steps` steps makes exactly `1 + 4 * steps` draws, and step k's draws sit at
 * positions 1 + 4k .. 4 + 4k of the stream. Never add a draw that depends on what happened.
 */
import {
  assertSometimes,
  assertSometimesAll,
  assertSometimesEach,
  assertSometimesGreaterThan,
  type RandomProvider,
  type Tracer,
} from "@moonpool/core";

export const WIDTH = 35;
export const HEIGHT = 20;
/** Floors 1..FLOORS; the treasure is on the last one. */
export const FLOORS = 8;
export const MAX_HP = 5;
export const POTION_HEAL = 2;
export const TRAP_DAMAGE = 1;
/** Chance that one Search on the key tile finds the key. */
export const KEY_FIND_PROBABILITY = 0.03;
/** Chance of repeating the previous action instead of the fresh pick. */
export const REPEAT_ACTION_PROBABILITY = 0.7;
export const DEFAULT_MAX_STEPS = 10_000;
/** `sim` draws per action pick (fresh action + habit roll). */
export const DRAWS_PER_PICK = 2;
/** `sim` draws per step: the pick, the key roll and the world seed. */
export const DRAWS_PER_STEP = 4;
/** `sim` draws of the first floor's layout. */
export const DRAWS_FOR_FIRST_FLOOR = 1;

/** The action alphabet; the ids are the swarm operation ids (stable, do not renumber). */
export const Action = {
  N: 0,
  NE: 1,
  E: 2,
  SE: 3,
  S: 4,
  SW: 5,
  W: 6,
  NW: 7,
  DownStairs: 8,
  Search: 9,
} as const;
export type ActionId = (typeof Action)[keyof typeof Action];
export const ACTION_COUNT = 10;
export const MOVE_COUNT = 8;
export const ACTION_NAMES = ["N", "NE", "E", "SE", "S", "SW", "W", "NW", "DownStairs", "Search"] as const;
export const ALL_ACTIONS: readonly ActionId[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** Move deltas of actions 0..7 (and of monster directions 0..7; 8 = stay). */
const DX = [0, 1, 1, 1, 0, -1, -1, -1, 0];
const DY = [-1, -1, 0, 1, 1, 1, 0, -1, 0];

export const Tile = { Wall: 0, Floor: 1, Stairs: 2, Treasure: 3, Potion: 4, Trap: 5 } as const;
export type TileId = (typeof Tile)[keyof typeof Tile];

const MIN_ROOMS = 4;
const MAX_ROOMS = 6;
const MIN_ROOM_W = 3;
const MAX_ROOM_W = 6;
const MIN_ROOM_H = 3;
const MAX_ROOM_H = 5;
const MIN_MONSTERS = 2;
const MAX_MONSTERS = 5;
/** Corridors are 1 + 2 * this wide, so diagonal moves can cross them (see the README: swarm). */
export const CORRIDOR_HALF_WIDTH = 1;

/**
 * mulberry32: a tiny local generator seeded from one `sim` draw. It makes the draws of level
 * generation and monster moves free, so the `sim` budget per step stays fixed.
 */
export class LocalRandom {
  private state: number;
  constructor(seed: number) {
    this.state = seed | 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** A uniform integer in [0, n) (modulo bias is irrelevant here). */
  below(n: number): number {
    return this.next() % n;
  }
}

interface Room {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  readonly cx: number;
  readonly cy: number;
}

/** One generated floor. Positions are tile indices `y * WIDTH + x`. */
export interface Floor {
  readonly level: number;
  readonly grid: Uint8Array;
  /** Room index of each tile, -1 for corridors and walls. */
  readonly roomOf: Int8Array;
  readonly rooms: number;
  readonly start: number;
  /** Stairs (floors 1..FLOORS-1) or treasure (last floor) position. */
  readonly goal: number;
  /** Key position, -1 on the last floor. */
  readonly key: number;
  readonly monsters: number[];
}

function carve(grid: Uint8Array, x: number, y: number): void {
  if (x >= 1 && x < WIDTH - 1 && y >= 1 && y < HEIGHT - 1) grid[y * WIDTH + x] = Tile.Floor;
}

/** Generates floor `level` (1-based) of a `floors`-floor dungeon from a local generator. */
export function generateFloor(level: number, rng: LocalRandom, floors: number = FLOORS): Floor {
  const grid = new Uint8Array(WIDTH * HEIGHT); // all walls
  const roomOf = new Int8Array(WIDTH * HEIGHT).fill(-1);
  const count = MIN_ROOMS + rng.below(MAX_ROOMS - MIN_ROOMS + 1);
  const rooms: Room[] = [];
  for (let i = 0; i < count; i++) {
    const w = MIN_ROOM_W + rng.below(MAX_ROOM_W - MIN_ROOM_W + 1);
    const h = MIN_ROOM_H + rng.below(MAX_ROOM_H - MIN_ROOM_H + 1);
    const x = 1 + rng.below(WIDTH - w - 2);
    const y = 1 + rng.below(HEIGHT - h - 2);
    rooms.push({ x, y, w, h, cx: x + (w >> 1), cy: y + (h >> 1) });
  }
  // Left to right: the walk starts in the leftmost room and the goal is in the rightmost one.
  rooms.sort((a, b) => a.cx - b.cx);
  rooms.forEach((room, index) => {
    for (let y = room.y; y < room.y + room.h; y++) {
      for (let x = room.x; x < room.x + room.w; x++) {
        grid[y * WIDTH + x] = Tile.Floor;
        roomOf[y * WIDTH + x] = index;
      }
    }
  });
  // L-shaped corridors between consecutive rooms: horizontal at the first centre's row, then
  // vertical at the second centre's column.
  for (let i = 0; i + 1 < rooms.length; i++) {
    const a = rooms[i]!;
    const b = rooms[i + 1]!;
    for (let x = Math.min(a.cx, b.cx); x <= Math.max(a.cx, b.cx); x++) {
      for (let d = -CORRIDOR_HALF_WIDTH; d <= CORRIDOR_HALF_WIDTH; d++) carve(grid, x, a.cy + d);
    }
    for (let y = Math.min(a.cy, b.cy); y <= Math.max(a.cy, b.cy); y++) {
      for (let d = -CORRIDOR_HALF_WIDTH; d <= CORRIDOR_HALF_WIDTH; d++) carve(grid, b.cx + d, y);
    }
  }
  const first = rooms[0]!;
  const last = rooms[rooms.length - 1]!;
  const start = first.cy * WIDTH + first.cx;
  const goal = last.cy * WIDTH + last.cx;
  const isLast = level >= floors;
  grid[goal] = isLast ? Tile.Treasure : Tile.Stairs;
  let key = -1;
  if (!isLast) {
    const keyRoom = rooms[1 + rng.below(rooms.length - 2)]!;
    key = keyRoom.cy * WIDTH + keyRoom.cx;
    const potionRoom = rooms[1 + rng.below(rooms.length - 2)]!;
    const potion = potionRoom.cy * WIDTH + potionRoom.cx;
    if (potion !== key && grid[potion] === Tile.Floor) grid[potion] = Tile.Potion;
  }
  const traps = 2 + rng.below(2);
  for (let t = 0; t < traps; t++) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const pos = rng.below(HEIGHT) * WIDTH + rng.below(WIDTH);
      if (grid[pos] === Tile.Floor && pos !== start && pos !== key) {
        grid[pos] = Tile.Trap;
        break;
      }
    }
  }
  const monsterCount = MIN_MONSTERS + (level >> 1) + rng.below(MAX_MONSTERS - MIN_MONSTERS + 1);
  const monsters: number[] = [];
  for (let m = 0; m < monsterCount; m++) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const pos = rng.below(HEIGHT) * WIDTH + rng.below(WIDTH);
      if (grid[pos] !== Tile.Wall && pos !== start) {
        monsters.push(pos);
        break;
      }
    }
  }
  return { level, grid, roomOf, rooms: rooms.length, start, goal, key, monsters };
}

/** Where `pos` leads with move `dir` (0..7, 8 = stay): unchanged into a wall or off the grid. */
export function moveTarget(grid: Uint8Array, pos: number, dir: number): number {
  const x = (pos % WIDTH) + DX[dir]!;
  const y = Math.floor(pos / WIDTH) + DY[dir]!;
  return x >= 0 && x < WIDTH && y >= 0 && y < HEIGHT && grid[y * WIDTH + x] !== Tile.Wall ? y * WIDTH + x : pos;
}

/**
 * Moves every monster one step in place (a direction of 8 or stay, drawn from `rng`, blocked by
 * walls) and tells whether one ends on `player`.
 */
export function moveMonsters(grid: Uint8Array, monsters: number[], rng: LocalRandom, player: number): boolean {
  let hit = false;
  for (let m = 0; m < monsters.length; m++) {
    monsters[m] = moveTarget(grid, monsters[m]!, rng.below(9));
    if (monsters[m] === player) hit = true;
  }
  return hit;
}

export type DungeonResult = "continue" | "bugFound" | "dead" | "done";

export interface DungeonGameOptions {
  /** The seed's alphabet (the swarmed actions): the fresh pick is uniform over it. Default: all ten. */
  readonly actions?: readonly ActionId[];
  /** Default DEFAULT_MAX_STEPS. */
  readonly maxSteps?: number;
  /** The treasure's floor, default FLOORS. Fewer only to make the bug easy (tests of the bug path). */
  readonly floors?: number;
  /** Where to emit the rare facts (`dungeon_descended`); none by default. */
  readonly trace?: Tracer;
}

/** The game state plus the walker: `step()` is one action of the random walker. */
export class Dungeon {
  steps = 0;
  hp = MAX_HP;
  hasKey = false;
  treasureFound = false;
  /** Deepest floor reached (the current floor: there is no way up). */
  floor: Floor;
  pos: number;
  lastAction: ActionId | -1 = -1;
  /** Room the walker is in, -1 in a corridor. */
  private room: number;
  /** The seed's alphabet (the swarmed actions). */
  readonly actions: readonly ActionId[];
  readonly maxSteps: number;
  readonly floors: number;
  private readonly trace: Tracer | undefined;

  /** `random` is the `sim` stream (`ctx.random`); the first floor costs one draw of it. */
  constructor(
    private readonly random: RandomProvider,
    options: DungeonGameOptions = {},
  ) {
    const actions = options.actions ?? ALL_ACTIONS;
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.floors = options.floors ?? FLOORS;
    this.trace = options.trace;
    if (actions.length === 0) throw new RangeError("Dungeon: the action alphabet must not be empty");
    if (!Number.isSafeInteger(this.floors) || this.floors < 1)
      throw new RangeError(`Dungeon: floors must be a positive integer, got ${String(this.floors)}`);
    this.actions = actions.slice();
    this.floor = generateFloor(1, new LocalRandom(random.random()), this.floors);
    this.pos = this.floor.start;
    this.room = this.floor.roomOf[this.pos]!;
  }

  get level(): number {
    return this.floor.level;
  }

  /** Draws the step's action: exactly DRAWS_PER_PICK draws. */
  private pick(): ActionId {
    const fresh = this.actions[this.random.random() % this.actions.length]!;
    const repeat = this.random.randomRatio() < REPEAT_ACTION_PROBABILITY;
    const action = repeat && this.lastAction !== -1 ? this.lastAction : fresh;
    this.lastAction = action;
    return action;
  }

  step(): DungeonResult {
    this.steps++;
    const action = this.pick();
    const level = this.floor.level;
    const searchingKey = action === Action.Search && this.pos === this.floor.key && !this.hasKey;
    // The key roll is the next draw: an explorer branching here re-rolls it directly.
    if (searchingKey) assertSometimesEach("on key tile", { floor: level }, { health: this.hp });
    const keyRoll = this.random.randomRatio();
    const rng = new LocalRandom(this.random.random());

    const result = this.act(action, searchingKey && keyRoll < KEY_FIND_PROBABILITY, rng);

    assertSometimesAll("ready to descend", {
      hasKey: this.hasKey,
      onStairs: this.floor.grid[this.pos] === Tile.Stairs,
      healthy: this.hp >= 3,
    });
    assertSometimesGreaterThan(this.floor.level, 0, "dungeon level reached");
    assertSometimesGreaterThan(this.hp, 0, "health remaining");
    if (result !== "continue") return result;
    return this.steps >= this.maxSteps ? "done" : "continue";
  }

  private act(action: ActionId, keyFound: boolean, rng: LocalRandom): DungeonResult {
    const floor = this.floor;
    const level = floor.level;
    if (action < MOVE_COUNT) {
      this.pos = moveTarget(floor.grid, this.pos, action);
      const room = floor.roomOf[this.pos]!;
      if (room !== this.room && room >= 0) {
        assertSometimesEach("room explored", { floor: level, room }, { hasKey: this.hasKey ? 1 : 0, health: this.hp });
        if (room === floor.rooms - 1)
          assertSometimesEach("goal room", { floor: level }, { hasKey: this.hasKey ? 1 : 0, health: this.hp });
      }
      this.room = room;
      const tile = floor.grid[this.pos];
      if (tile === Tile.Potion) {
        this.hp = Math.min(MAX_HP, this.hp + POTION_HEAL);
        floor.grid[this.pos] = Tile.Floor;
        assertSometimes(true, "picked up potion");
      } else if (tile === Tile.Trap) {
        this.hp -= TRAP_DAMAGE;
        floor.grid[this.pos] = Tile.Floor;
        if (this.hp <= 0) return "dead";
        assertSometimes(true, "survived a trap");
      } else if (tile === Tile.Stairs && this.hasKey) {
        assertSometimesEach("stairs with key", { floor: level }, { health: this.hp });
      } else if (tile === Tile.Treasure) {
        assertSometimes(true, "near treasure");
      }
    } else if (action === Action.DownStairs) {
      if (floor.grid[this.pos] === Tile.Stairs) {
        if (!this.hasKey) {
          assertSometimes(true, "stairs without key");
        } else {
          this.descend(rng);
          return "continue"; // monsters of the new floor start moving next step
        }
      }
    } else if (floor.grid[this.pos] === Tile.Treasure) {
      // Search on the treasure: the planted bug.
      this.treasureFound = true;
      assertSometimes(true, "treasure found");
      return "bugFound";
    } else if (keyFound) {
      this.hasKey = true;
      assertSometimes(true, "key found");
      assertSometimesEach("key found on floor", { floor: level }, { health: this.hp });
    }
    return this.monstersTurn(rng);
  }

  private descend(rng: LocalRandom): void {
    this.floor = generateFloor(this.floor.level + 1, rng, this.floors);
    this.hasKey = false;
    this.pos = this.floor.start;
    this.room = this.floor.roomOf[this.pos]!;
    assertSometimesEach("descended", { toFloor: this.floor.level }, { health: this.hp });
    this.trace?.info("dungeon_descended", { floor: this.floor.level, step: this.steps, hp: this.hp });
  }

  /** Monsters step; one on the walker's tile afterwards hits it. */
  private monstersTurn(rng: LocalRandom): DungeonResult {
    if (!moveMonsters(this.floor.grid, this.floor.monsters, rng, this.pos)) return "continue";
    this.hp -= 1 + rng.below(2);
    if (this.hp <= 0) return "dead";
    assertSometimes(true, "survived monster hit");
    return "continue";
  }

  /** Steps until the treasure is found, the walker dies or the step limit is reached. */
  run(): DungeonResult {
    for (;;) {
      const result = this.step();
      if (result !== "continue") return result;
    }
  }
}
