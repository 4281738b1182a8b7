/**
 * One simulated process as the virtual Node runtime sees it: the owner of the events its code
 * schedules (so its timers die with it), its clocks, and its own random stream.
 */
import { EventEmitter } from "node:events";
import type { EventOwner, SimEvent } from "../../engine/event-queue.ts";
import { msToUs } from "../../engine/engine.ts";
import type { RandomStream } from "../../engine/rng.ts";
import { EventTag } from "../event-tag.ts";
import type { ProcessClock } from "../time.ts";
import type { World } from "../world.ts";
import type { TimerIds } from "./timers.ts";
import { fillBytes, float53, type RandomSource } from "./crypto.ts";

/**
 * What `Date.now()` reads at simulated time 0 (2026-01-01T00:00:00Z): a plausible present-day
 * date, since some libraries reject timestamps near 1970.
 */
export const VIRTUAL_EPOCH_MS = 1_767_225_600_000;

export class VirtualProcess implements RandomSource {
  constructor(
    readonly world: World,
    /** The incarnation whose events these are; null for code outside any process (the runner). */
    readonly owner: EventOwner | null,
    readonly actor: string,
    readonly clock: ProcessClock,
    readonly ip: string,
    /** Shared by every incarnation of the same actor: a reboot continues it instead of repeating ids. */
    readonly random: RandomStream,
    /** The seed's live virtual timers by numeric id (`clearTimeout(+timer)`), shared by its processes. */
    readonly timerIds: TimerIds,
    /** Reports an exception thrown by a callback this runtime called (a timer's). */
    private readonly onUncaught: (process: VirtualProcess, error: unknown, where: string) => void,
  ) {}

  private events: EventEmitter | null = null;

  /** This process's own `process.on('uncaughtException' | 'unhandledRejection')` listeners (process-events.ts). */
  get errorEvents(): EventEmitter {
    this.events ??= new EventEmitter();
    return this.events;
  }

  /** The listeners' emitter if the process ever registered one, else null. */
  get existingErrorEvents(): EventEmitter | null {
    return this.events;
  }

  get alive(): boolean {
    return this.owner === null || this.owner.alive;
  }

  /** `Date.now()`: the process's wall clock (clock chaos applies) from the virtual epoch. */
  wallMs(): number {
    return VIRTUAL_EPOCH_MS + this.clock.wall(this.world);
  }

  /** `performance.now()`: the process's monotonic clock (drift applies). */
  monotonicMs(): number {
    return this.clock.read(this.world);
  }

  /** `Math.random()`: 53 random bits, as V8 gives. */
  mathRandom(): number {
    return float53(this.random);
  }

  fillRandom(bytes: Uint8Array): void {
    fillBytes(this.random, bytes);
  }

  /**
   * Schedules `fire(arg, arg2)` after `delayMs` of this process's monotonic clock (buggified sleep
   * delays apply, as to `ctx.time.sleep`); a zero delay is a yield.
   */
  schedule(delayMs: number, fire: (arg: any, arg2: any) => void, arg: unknown, arg2: unknown): SimEvent {
    const delayUs = delayMs === 0 ? 0 : this.clock.trueDelayUs(msToUs(delayMs)) + this.world.extraSleepUs(this.ip);
    const event = this.world.engine.schedule(delayUs, fire, arg, EventTag.runtimeTimer, this.owner, arg2);
    if (delayMs === 0) event.yieldOnly = true;
    return event;
  }

  /** Calls `callback(null, value)` as a virtual immediate of this process. */
  callBack(callback: (error: null, value: any) => void, value: unknown): void {
    this.schedule(
      0,
      (cb: typeof callback, result: unknown) => this.alive && this.call(() => cb(null, result)),
      callback,
      value,
    );
  }

  /** Runs a callback of user code; a throw is what Node would report as an uncaught exception. */
  call(body: () => void, where = "a timer callback"): void {
    try {
      body();
    } catch (error) {
      this.uncaught(error, where);
    }
  }

  /** An exception nothing caught in this process's code, thrown from `where` (a timer callback, a socket listener). */
  uncaught(error: unknown, where: string): void {
    this.onUncaught(this, error, where);
  }
}
