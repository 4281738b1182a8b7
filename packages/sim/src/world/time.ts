/** Simulated time: sleeps are engine events; `now()` is exact simulated time. */
import { TimeoutError, type TimeProvider } from "@moonpool/core";
import { Incarnation, never, type PendingOp } from "../engine/incarnation.ts";
import { msToUs } from "../engine/engine.ts";
import type { World } from "./world.ts";
import { EventTag } from "./world.ts";
import type { ActorScope } from "./scope.ts";
import { NETWORK_FAULT_KINDS } from "./network-config.ts";

function fireTimer(op: PendingOp<void>): void {
  Incarnation.resolve(op, undefined);
}

/**
 * A process's own clock for `timer()`. It may run ahead of simulated time by at most
 * `driftMaxUs` (0 = no drift), never behind it, and never goes backwards: the model of a real
 * machine clock that drifts forward between synchronisations (moonpool: each read moves
 * `timer += u · (now + max − timer) / 2`). Network chaos sets `driftMaxUs` per seed; in recovery
 * mode the clock stops drifting but keeps any lead it already has.
 */
export class ProcessClock {
  driftMaxUs = 0;
  private timerUs = 0;
  private driftReported = false;

  constructor(
    /** The process's IP, named in the `clock_drift` fault event. */
    readonly ip: string = "",
  ) {}

  read(world: World): number {
    const nowUs = world.engine.nowUs;
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
}

export class SimTime implements TimeProvider {
  constructor(private readonly scope: ActorScope) {}

  sleep(delayMs: number): Promise<void> {
    const delayUs = msToUs(delayMs) + this.scope.world.extraSleepUs(this.scope.ip);
    const op = this.scope.incarnation.begin<void>(this.scope.taskState, true, "sleep ms", delayMs);
    if (op === null) return never<void>();
    const event = this.scope.world.engine.schedule(delayUs, fireTimer, op, EventTag.timer, this.scope.incarnation);
    // A zero sleep is a yield, even when a buggified delay moves it forward (busy-loop detection).
    if (delayMs === 0) event.yieldOnly = true;
    return op.promise;
  }

  now(): number {
    return this.scope.world.engine.nowUs / 1000;
  }

  timer(): number {
    return this.scope.clock.read(this.scope.world);
  }

  timeout<T>(timeoutMs: number, promise: Promise<T>): Promise<T> {
    const op = this.scope.incarnation.begin<void>(this.scope.taskState, true, "timeout ms", timeoutMs);
    if (op === null) return never<T>();
    const timer = op.promise;
    this.scope.world.engine.schedule(msToUs(timeoutMs), fireTimer, op, EventTag.timer, this.scope.incarnation);
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
