/**
 * The deterministic engine: simulated clock, event queue, random streams and the step loop.
 *
 * One step = pop one event, apply it (which settles engine-owned promises), let every resulting
 * promise continuation run to quiescence, then run the after-step hook (invariants).
 * Quiescence uses tickHopSafe (docs/decisions.md D1): from a microtask, queue a `nextTick`; Node runs it
 * only once V8 emptied the microtask queue; if user code queued ticks meanwhile, go round again.
 * Between steps the loop yields to the real event loop with `setImmediate` (see
 * `YIELD_AFTER_WALL_MS`) so I/O, the test runner and rejection tracking can run. The "paranoid" mode yields after every
 * step instead (a macrotask boundary is a certain quiescence point); both modes must give the
 * same trace, which the test suite checks.
 */
import { EventQueue, SimEvent, type EventCallback, type EventOwner } from "./event-queue.ts";
import { natives } from "./natives.ts";
import { currentProgressCells } from "./progress.ts";
import { seedStreams, type SeedStreams } from "./rng.ts";
import { TickCounter } from "./ticks.ts";

export type SteppingMode = "fast" | "paranoid";

/**
 * Fast mode hands control back to the real event loop (test runner RPC, real I/O, signal
 * handlers) once at least `YIELD_AFTER_WALL_MS` of wall time passed, checking the clock every
 * `YIELD_CHECK_EVERY_STEPS` steps. A yield happens only between steps, at a quiescent point, and
 * the simulation never observes it, so timing it by the wall clock keeps runs deterministic; a
 * fixed 1,000-step period cost about 15 % of throughput in the engine benchmark.
 */
export const YIELD_CHECK_EVERY_STEPS = 1024;
export const YIELD_AFTER_WALL_MS = 10;

/**
 * Steps allowed at one simulated instant before the run counts as a busy loop (code that keeps
 * yielding or scheduling zero-delay work without ever letting simulated time advance).
 */
export const DEFAULT_MAX_STEPS_PER_INSTANT = 1_000_000;

export const US_PER_MS = 1000;

export function msToUs(ms: number): number {
  if (!(ms >= 0) || !Number.isFinite(ms)) {
    throw new RangeError(`a duration must be a finite number of milliseconds >= 0, got ${String(ms)}`);
  }
  return Math.round(ms * US_PER_MS);
}

/** Why `runUntil` returned. */
export type RunUntilResult =
  | "done" // the condition became true
  | "idle" // no event left and the condition is still false
  | "deadline" // the next event is past the deadline
  | "busy"; // too many steps at one simulated instant

export interface RunLimits {
  /** Stop with "deadline" before applying an event later than this (absolute µs). */
  readonly deadlineUs?: number;
  readonly maxStepsPerInstant?: number;
}

const FNV_PRIME = 0x01000193;

/**
 * Microtasks are queued as reactions of an already-resolved promise rather than with
 * `queueMicrotask`: Node wraps every `queueMicrotask` callback in an AsyncResource, which cost
 * about a third of a step in profiles. The order guarantees are the same (a V8 microtask).
 */
const RESOLVED = Promise.resolve();

/** Hooks into the real event loop boundary: the escape guard disarms while we are out. */
export interface LoopBoundary {
  leaveSimulation(): void;
  enterSimulation(): void;
}

let sharedTickCounter: TickCounter | null = null;

function tickCounter(): TickCounter {
  sharedTickCounter ??= new TickCounter(natives.nextTick);
  return sharedTickCounter;
}

/** A `runUntil` in progress: its condition, limits and promise, and its loop counters. */
interface ActiveRun {
  readonly done: () => boolean;
  readonly deadlineUs: number;
  readonly maxAtInstant: number;
  readonly paranoid: boolean;
  readonly resolve: (result: RunUntilResult) => void;
  readonly reject: (error: unknown) => void;
  seenTicks: number;
  sinceYield: number;
}

export class Engine {
  nowUs = 0;
  readonly queue: EventQueue;
  readonly streams: SeedStreams;
  /** Steps applied so far (events processed). */
  steps = 0;
  /** Owner of the event being applied: code running in this step belongs to it. */
  currentOwner: EventOwner | null = null;
  /**
   * The trace hash kept as a signed 32-bit integer: always a small integer for V8, so updating it
   * on every step never boxes a number. `traceHash` gives the unsigned value.
   */
  private hash32 = 0x811c9dc5 | 0;
  /** Called after every step once continuations are quiescent (invariants). */
  afterStep: () => void = () => {};
  boundary: LoopBoundary | null = null;
  /**
   * Set once simulated code uses Node's native HTTP/2: its writes run as native immediates, so the real
   * loop must run after every step (as in "paranoid" mode) for them to reach the simulated sockets.
   */
  yieldEveryStep = false;
  /**
   * The simulated process on whose behalf Node runs the current real-loop callback between steps (a
   * native HTTP/2 session's), or null: the escape guard then answers that code as the process.
   */
  ownerBetweenSteps: (() => EventOwner | null) | null = null;
  /**
   * Set (by the runner) when simulated code rejected a promise that had no handler yet. At the next
   * quiescent point the loop then hands control to the real event loop once, so Node reports the
   * step's unhandled rejections, as it does after every macrotask; `afterRejectionCheck` runs before
   * the next step.
   */
  rejectionSeen = false;
  /** Runs once Node had its chance to report the step's unhandled rejections (the runner ends their processes). */
  afterRejectionCheck: (() => void) | null = null;
  private seq = 0;
  private stepsAtInstant = 0;
  private ticks: TickCounter = tickCounter();
  /** The `runUntil` in progress, or null. */
  private run: ActiveRun | null = null;
  /** Where every step says it started, for the hang watchdog of the thread's host (progress.ts). */
  private readonly progressCounters: Int32Array;
  private readonly progressTimeUs: Float64Array;

  constructor(
    readonly seed: number,
    readonly mode: SteppingMode = "fast",
  ) {
    this.streams = seedStreams(seed);
    const schedule = this.streams.schedule;
    this.queue = new EventQueue((n) => schedule.rangeInt(0, n));
    const progress = currentProgressCells();
    this.progressCounters = progress.counters;
    this.progressTimeUs = progress.timeUs;
    Atomics.add(progress.counters, 1, 1);
    progress.timeUs[0] = 0;
  }

  /** Schedules `callback(arg, arg2)` at `nowUs + delayUs`. `tag` identifies the event kind in the hash. */
  schedule(
    delayUs: number,
    callback: EventCallback,
    arg: unknown,
    tag: number,
    owner: EventOwner | null = null,
    arg2: unknown = undefined,
  ): SimEvent {
    return this.scheduleAt(this.nowUs + delayUs, callback, arg, tag, owner, arg2);
  }

  scheduleAt(
    timeUs: number,
    callback: EventCallback,
    arg: unknown,
    tag: number,
    owner: EventOwner | null = null,
    arg2: unknown = undefined,
  ): SimEvent {
    const t = timeUs < this.nowUs ? this.nowUs : timeUs;
    const event = new SimEvent(t, this.seq++, callback, arg, tag, owner, arg2);
    this.queue.push(event);
    return event;
  }

  /** 32-bit FNV-style hash (unsigned) of every step (time and tag) and every trace fact mixed in. */
  get traceHash(): number {
    return this.hash32 >>> 0;
  }

  /** Mixes a 32-bit value into the trace hash. */
  mix(value: number): void {
    this.hash32 = Math.imul(this.hash32 ^ (value | 0), FNV_PRIME);
  }

  mixString(text: string): void {
    let h = this.hash32;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
    this.hash32 = h;
  }

  /** Name of the actor whose code is running now (for escape and console attribution). */
  get currentActor(): string {
    return this.currentOwner?.actor ?? "runner";
  }

  /** Makes `process.nextTick` countable for this engine's loop; call once per seed run. */
  installTickCounter(): void {
    this.ticks.install();
  }

  uninstallTickCounter(): void {
    this.ticks.uninstall();
  }

  /**
   * Steps until `done()` is true (checked at every quiescent point, before each step), the
   * queue runs dry, the deadline is reached, or a busy loop is detected. One run at a time.
   */
  runUntil(done: () => boolean, limits: RunLimits = {}): Promise<RunUntilResult> {
    if (this.run !== null) throw new Error("Engine.runUntil() while another runUntil() of this engine is running");
    return new Promise<RunUntilResult>((resolve, reject) => {
      this.run = {
        done,
        deadlineUs: limits.deadlineUs ?? Infinity,
        maxAtInstant: limits.maxStepsPerInstant ?? DEFAULT_MAX_STEPS_PER_INSTANT,
        paranoid: this.mode === "paranoid",
        resolve,
        reject,
        seenTicks: -1,
        sinceYield: 0,
      };
      void RESOLVED.then(this.hop);
    });
  }

  // The loop's callbacks are made once per engine, not once per run: a seed runs several phases,
  // and each run's closures were a visible share of a short seed.
  private readonly hop = (): void => {
    natives.nextTick(this.quiescent);
  };

  /**
   * The real event loop runs only between steps, once the previous step's continuations have all
   * run: leaving earlier would run them with the guard and console capture off.
   */
  private readonly resumeFromLoop = (): void => {
    this.boundary?.enterSimulation();
    if (this.rejectionsChecked()) this.step();
  };

  /** Back from the real loop after a rejection check: its handling may queue continuations, so hop again. */
  private readonly resumeAfterRejections = (): void => {
    this.boundary?.enterSimulation();
    if (this.rejectionsChecked()) this.hop();
  };

  /** Runs `afterRejectionCheck`; false when it threw (the run has failed with that error). */
  private rejectionsChecked(): boolean {
    try {
      this.afterRejectionCheck?.();
      return true;
    } catch (error) {
      this.fail(this.run!, error);
      return false;
    }
  }

  private readonly quiescent = (): void => {
    const run = this.run!;
    // Ticks are compared with the previous check, not with the hop: a tick queued before the
    // hop runs ahead of `quiescent` in the same drain, and the microtasks it queues run after it.
    // User ticks were queued behind ours: their continuations may not have run yet.
    if (this.ticks.count !== run.seenTicks) {
      run.seenTicks = this.ticks.count;
      void RESOLVED.then(this.hop);
      return;
    }
    // Before the invariants and the done check: a process error belongs to the step that made it.
    if (this.rejectionSeen) {
      this.rejectionSeen = false;
      this.boundary?.leaveSimulation();
      natives.setImmediate(this.resumeAfterRejections);
      return;
    }
    try {
      this.afterStep();
      const done = run.done;
      if (done()) return this.finish(run, "done");
    } catch (error) {
      return this.fail(run, error);
    }
    let yieldNow = run.paranoid || this.yieldEveryStep;
    if (!yieldNow && ++run.sinceYield >= YIELD_CHECK_EVERY_STEPS) {
      run.sinceYield = 0;
      yieldNow = this.wallTimeToYield();
    }
    if (yieldNow) {
      this.boundary?.leaveSimulation();
      natives.setImmediate(this.resumeFromLoop);
    } else {
      this.step();
    }
  };

  private step(): void {
    const run = this.run!;
    try {
      const queue = this.queue;
      const nextTimeUs = queue.peekTimeUs();
      if (nextTimeUs === undefined) return this.finish(run, "idle");
      if (nextTimeUs > run.deadlineUs) return this.finish(run, "deadline");
      const next = queue.pop()!;
      if (next.timeUs === this.nowUs) {
        if (++this.stepsAtInstant > run.maxAtInstant) return this.finish(run, "busy");
      } else {
        this.stepsAtInstant = 0;
        this.nowUs = next.timeUs;
        this.progressTimeUs[0] = next.timeUs;
      }
      // An actor that only ever yields is busy even when chaos delays its yields (time then
      // moves, and with it the per-instant count resets).
      const owner = next.owner;
      if (owner !== null && owner.yieldStreak !== undefined) {
        if (!next.yieldOnly) owner.yieldStreak = 0;
        else if (++owner.yieldStreak > run.maxAtInstant) return this.finish(run, "busy");
      }
      this.steps++;
      Atomics.store(this.progressCounters, 0, this.steps);
      this.hash32 = Math.imul(Math.imul(this.hash32 ^ (next.timeUs | 0), FNV_PRIME) ^ next.tag, FNV_PRIME);
      this.currentOwner = next.owner;
      run.seenTicks = this.ticks.count;
      next.callback(next.arg, next.arg2);
    } catch (error) {
      return this.fail(run, error);
    }
    void RESOLVED.then(this.hop);
  }

  private finish(run: ActiveRun, result: RunUntilResult): void {
    this.run = null;
    run.resolve(result);
  }

  private fail(run: ActiveRun, error: unknown): void {
    this.run = null;
    run.reject(error);
  }

  private lastYieldWallMs = natives.performanceNow();

  private wallTimeToYield(): boolean {
    const now = natives.performanceNow();
    if (now - this.lastYieldWallMs < YIELD_AFTER_WALL_MS) return false;
    this.lastYieldWallMs = now;
    return true;
  }
}
