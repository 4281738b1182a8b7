/**
 * One simulated process as the virtual Node runtime sees it: the owner of the events its code
 * schedules (so its timers die with it), its clocks, and its own random stream.
 */
import type { EventOwner, SimEvent } from "../../engine/event-queue.ts";
import { msToUs } from "../../engine/engine.ts";
import type { RandomStream } from "../../engine/rng.ts";
import { EventTag } from "../event-tag.ts";
import type { ProcessClock } from "../time.ts";
import type { World } from "../world.ts";
import type { TimerIds } from "./timers.ts";

/**
 * What `Date.now()` reads at simulated time 0 (2026-01-01T00:00:00Z): a plausible present-day
 * date, since some libraries reject timestamps near 1970.
 */
export const VIRTUAL_EPOCH_MS = 1_767_225_600_000;

const TWO_POW_26 = 67_108_864;
const TWO_POW_53 = 9_007_199_254_740_992;

export class VirtualProcess {
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
    private readonly onUncaught: (actor: string, error: unknown) => void,
  ) {}

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
    const high = this.random.u32() >>> 5;
    const low = this.random.u32() >>> 6;
    return (high * TWO_POW_26 + low) / TWO_POW_53;
  }

  fillRandom(bytes: Uint8Array): void {
    let i = 0;
    for (; i + 4 <= bytes.length; i += 4) {
      const word = this.random.u32();
      bytes[i] = word & 0xff;
      bytes[i + 1] = (word >>> 8) & 0xff;
      bytes[i + 2] = (word >>> 16) & 0xff;
      bytes[i + 3] = word >>> 24;
    }
    if (i < bytes.length) {
      let word = this.random.u32();
      for (; i < bytes.length; i++, word >>>= 8) bytes[i] = word & 0xff;
    }
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

  uncaught(error: unknown): void {
    this.onUncaught(this.actor, error);
  }
}
