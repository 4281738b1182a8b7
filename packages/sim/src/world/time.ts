/**
 * Simulated time: sleeps are engine events measured on the process's monotonic clock; `now()`
 * reads the process's wall clock and `timer()` its monotonic clock (exact with `.clockFaults("none")`).
 */
import { TimeoutError, type TimeProvider } from "@moonpool/core";
import { Incarnation, never, type PendingOp } from "../engine/incarnation.ts";
import { msToUs } from "../engine/engine.ts";
import type { World } from "./world.ts";
import { EventTag } from "./event-tag.ts";
import type { ActorScope } from "./scope.ts";
import { NETWORK_FAULT_KINDS } from "./network/config.ts";
import { CLOCK_FAULT_KINDS } from "./clock-config.ts";

function fireTimer(op: PendingOp<void>): void {
  Incarnation.resolve(op, undefined);
}

/** What clock chaos drew for one process (see `clock-config.ts`). */
export interface ClockSkew {
  /** Wall clock minus true time at time 0 (µs). */
  readonly offsetUs: number;
  /** The monotonic clock's reading at true time 0 (µs, ≥ 0). */
  readonly monotonicOriginUs: number;
  /** Both clocks run at `1 + rateError` times true time. */
  readonly rateError: number;
}

/** The seed's clock-step model, shared by every process's clock. */
export interface ClockSteps {
  readonly meanIntervalUs: number;
  readonly maxUs: number;
  /** True time of the chaos cutoff once it happened: no step at or after it. */
  cutoffUs: number;
}

/**
 * A process's clocks. With exact clocks (`skew` null) `now()` is exact simulated time and
 * `timer()` may run ahead of it by at most `driftMaxUs` (0 = no drift), never behind it, and never
 * goes backwards: each read moves `timer += u · (now + max − timer) / 2`. Network chaos sets
 * `driftMaxUs` per seed; in recovery mode the clock stops drifting but keeps any lead it has.
 *
 * With clock faults (`skew` set: the baseline clocks or clock chaos) the wall clock and the
 * monotonic clock follow the model of `clock-config.ts`; `driftMaxUs` is not used.
 */
export class ProcessClock {
  driftMaxUs = 0;
  private timerUs = 0;
  private driftReported = false;
  private skew: ClockSkew | null = null;
  private steps: ClockSteps | null = null;
  private nextStepAtUs = Infinity;
  private stepSumUs = 0;
  private skewReported = false;

  constructor(
    /** The process's IP, named in the clock fault events. */
    readonly ip: string = "",
  ) {}

  /** Installs this seed's clock faults for the process; `firstStepAtUs` is when its wall clock first steps. */
  setSkew(skew: ClockSkew, steps: ClockSteps | null, firstStepAtUs: number): void {
    this.skew = skew;
    this.steps = steps;
    this.nextStepAtUs = steps === null ? Infinity : firstStepAtUs;
  }

  /** The monotonic clock (`timer()`), in ms. */
  read(world: World): number {
    const nowUs = world.engine.nowUs;
    if (this.skew !== null) {
      this.reportSkew(world);
      return this.monotonicUs(nowUs) / 1000;
    }
    if (this.timerUs < nowUs) this.timerUs = nowUs;
    if (this.driftMaxUs > 0 && !world.inRecoveryMode && this.timerUs < nowUs + this.driftMaxUs) {
      // Move part of the way towards the upper bound: drift accumulates but stays bounded.
      const u = world.engine.streams.sim.ratio();
      this.timerUs += Math.floor((u * (nowUs + this.driftMaxUs - this.timerUs)) / 2);
      if (!this.driftReported && this.timerUs > nowUs) {
        this.driftReported = true; // once per clock: drift is a state, not a stream of events
        world.recordFault(NETWORK_FAULT_KINDS.clockDrift, { ip: this.ip, driftMaxMs: this.driftMaxUs / 1000 });
      }
    }
    return this.timerUs / 1000;
  }

  /** The wall clock (`now()`), in ms. */
  wall(world: World): number {
    const nowUs = world.engine.nowUs;
    const skew = this.skew;
    if (skew === null) return nowUs / 1000;
    this.reportSkew(world);
    this.applySteps(world, nowUs);
    return Math.floor(nowUs + skew.offsetUs + nowUs * skew.rateError + this.stepSumUs) / 1000;
  }

  /** True time that `delayUs` of this process's monotonic clock takes. */
  trueDelayUs(delayUs: number): number {
    const skew = this.skew;
    if (skew === null || skew.rateError === 0 || delayUs === 0) return delayUs;
    return Math.max(1, Math.round(delayUs / (1 + skew.rateError)));
  }

  private monotonicUs(nowUs: number): number {
    const skew = this.skew!;
    return Math.floor(skew.monotonicOriginUs + nowUs * (1 + skew.rateError));
  }

  private reportSkew(world: World): void {
    if (this.skewReported) return;
    this.skewReported = true; // a skew is a state of the clock: one event per process
    const skew = this.skew!;
    world.recordFault(CLOCK_FAULT_KINDS.clockSkew, {
      ip: this.ip,
      offsetMs: skew.offsetUs / 1000,
      rateErrorPpm: Math.round(skew.rateError * 1e6),
    });
  }

  /** Every step due by `nowUs` (and before the chaos cutoff), each drawn from `sim` when first seen. */
  private applySteps(world: World, nowUs: number): void {
    const steps = this.steps;
    if (steps === null) return;
    const sim = world.engine.streams.sim;
    while (this.nextStepAtUs <= nowUs && this.nextStepAtUs < steps.cutoffUs) {
      const stepUs = sim.rangeInt(-steps.maxUs, steps.maxUs + 1);
      if (!world.skipFault(CLOCK_FAULT_KINDS.clockStep)) {
        this.stepSumUs += stepUs;
        world.recordFault(CLOCK_FAULT_KINDS.clockStep, {
          ip: this.ip,
          stepMs: stepUs / 1000,
          dueMs: this.nextStepAtUs / 1000,
        });
      }
      this.nextStepAtUs += nextStepGapUs(sim.ratio(), steps.meanIntervalUs);
    }
  }
}

/** An exponential gap with mean `meanUs` from a uniform draw `u` in [0, 1) (at least 1 µs). */
export function nextStepGapUs(u: number, meanUs: number): number {
  return Math.max(1, Math.round(-meanUs * Math.log(1 - u)));
}

export class SimTime implements TimeProvider {
  constructor(private readonly scope: ActorScope) {}

  sleep(delayMs: number): Promise<void> {
    const delayUs = this.scope.clock.trueDelayUs(msToUs(delayMs)) + this.scope.world.extraSleepUs(this.scope.ip);
    const op = this.scope.incarnation.begin<void>(this.scope.taskState, true, "sleep ms", delayMs);
    if (op === null) return never<void>();
    const event = this.scope.world.engine.schedule(delayUs, fireTimer, op, EventTag.timer, this.scope.incarnation);
    // A zero sleep is a yield, even when a buggified delay moves it forward (busy-loop detection).
    if (delayMs === 0) event.yieldOnly = true;
    return op.promise;
  }

  now(): number {
    return this.scope.clock.wall(this.scope.world);
  }

  timer(): number {
    return this.scope.clock.read(this.scope.world);
  }

  timeout<T>(timeoutMs: number, promise: Promise<T>): Promise<T> {
    const op = this.scope.incarnation.begin<void>(this.scope.taskState, true, "timeout ms", timeoutMs);
    if (op === null) return never<T>();
    const timer = op.promise;
    this.scope.world.engine.schedule(
      this.scope.clock.trueDelayUs(msToUs(timeoutMs)),
      fireTimer,
      op,
      EventTag.timer,
      this.scope.incarnation,
    );
    return new Promise<T>((resolve, reject) => {
      promise.then(
        (value) => {
          Incarnation.cancel(op);
          resolve(value);
        },
        (error: unknown) => {
          Incarnation.cancel(op);
          reject(error);
        },
      );
      timer.then(() => reject(new TimeoutError(timeoutMs)), reject);
    });
  }
}
