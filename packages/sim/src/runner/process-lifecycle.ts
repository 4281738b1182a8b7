/**
 * Process reboots: how a process goes down and comes back, for the fault
 * injectors (`FaultContext.reboot*`) and the built-in attrition.
 *
 * - `"graceful"`: the process's `ctx.shutdown` aborts and its abortable waits (sleeps, reads,
 *   accepts, ...) reject with an `AbortError`; storage operations are not abortable, so it can
 *   still flush and sync. After the grace period it is killed (`process_force_kill`): if it was
 *   still running then (its `run()` had not returned, or a task of it still waited on something),
 *   that kill is a crash of the machine too (`world.storage.crash(ip)`: unsynced writes are
 *   exposed to the crash faults); if it had exited cleanly, its storage is left alone (unsynced
 *   writes survive, as they do when a process exits and the OS stays up).
 * - `"crash"`: at once. The incarnation stops at the await it is suspended on (nothing after it
 *   runs, no `finally`), every connection and listener it owned is reset, and its machine loses
 *   power (`world.storage.crash(ip)`). It is dead at once, as a crashed machine runs nothing.
 * - `"crashAndWipe"`: a crash, then every file of its IP is deleted (`world.storage.wipe(ip)`).
 *
 * Either way the process restarts after the recovery delay (`process_restart`) as a fresh
 * instance from its factory with a new incarnation (same IP, same files). From the reboot until
 * the restart it counts as dead (`deadCount`). A reboot of a process that is already dead is
 * ignored, traced (`reboot_ignored`) and counted, so `deadCount` never counts one process twice.
 *
 * Every step is a `sim_fault` event (`PROCESS_FAULT_KINDS`), so timing invariants can be checked
 * on the trace: `force_kill - graceful_shutdown == gracePeriodMs`, `restart - force_kill` (graceful)
 * or `restart - crash` (crash kinds) `== recoveryDelayMs`. Reboots already started when the run
 * phase ends are dropped with the rest of the run (no restart after it).
 */
import { abortError, assertAlwaysLessThanOrEqualTo, assertReachable } from "@moonpool/core";
import { msToUs } from "../engine/engine.ts";
import type { Incarnation } from "../engine/incarnation.ts";
import { EventTag, type World } from "../world/world.ts";

import {
  PROCESS_FAULT_KINDS,
  REBOOT_ASSERTIONS,
  drawDelayMs,
  emptyRebootStats,
  type RebootCause,
  type RebootKind,
  type RebootStats,
} from "../chaos/reboot-kinds.ts";

export {
  DEFAULT_GRACE_PERIOD_MS,
  DEFAULT_RECOVERY_DELAY_MS,
  PROCESS_FAULT_KINDS,
  REBOOT_ASSERTIONS,
  REBOOT_KINDS,
  delayRangeError,
  drawDelayMs,
  emptyRebootStats,
  isRebootKind,
  normalizeDelayRange,
  type DelayRangeMs,
  type RebootCause,
  type RebootKind,
  type RebootStats,
} from "../chaos/reboot-kinds.ts";

/** The part of a process slot the lifecycle needs. */
export interface LifecycleSlot {
  readonly ip: string;
  readonly actor: string;
  incarnation: Incarnation | null;
}

interface SlotState {
  readonly slot: LifecycleSlot;
  /** From the reboot until the restart. */
  dead: boolean;
  /** The current incarnation's `run()` settled. */
  exited: boolean;
}

/**
 * The processes of one seed, their dead count, and the reboot machinery. The seed runner adds
 * every slot, tells it when a `run()` settles, and stops it when the run phase ends; `boot`
 * starts a fresh instance on a slot.
 */
export class ProcessLifecycle {
  /** Owner of the kill and restart events: dead once the run phase is over. */
  private readonly owner = { actor: "runner", alive: true };
  private readonly states = new Map<string, SlotState>();
  private dead = 0;
  readonly stats: RebootStats = emptyRebootStats();

  constructor(
    private readonly world: World,
    private readonly boot: (slot: LifecycleSlot) => void,
  ) {}

  add(slot: LifecycleSlot): void {
    this.states.set(slot.ip, { slot, dead: false, exited: false });
  }

  get processCount(): number {
    return this.states.size;
  }

  /** Processes between a reboot and their restart. */
  deadCount(): number {
    return this.dead;
  }

  has(ip: string): boolean {
    return this.states.has(ip);
  }

  isDead(ip: string): boolean {
    return this.states.get(ip)?.dead ?? false;
  }

  /** Whether reboots still take effect (false once the run phase is over). */
  get active(): boolean {
    return this.owner.alive;
  }

  /** The seed runner calls this when `incarnation`'s `run()` resolved or rejected. */
  processExited(slot: LifecycleSlot, incarnation: Incarnation): void {
    const state = this.states.get(slot.ip);
    if (state !== undefined && slot.incarnation === incarnation) state.exited = true;
  }

  /** The run phase is over: no kill or restart from now on (the runner stops every process itself). */
  stop(): void {
    this.owner.alive = false;
  }

  /**
   * Reboots the process at `ip` (a process IP: callers check). Returns false, with a trace event,
   * when it is already dead or the run phase is over. Delays are drawn from the sim stream: the
   * grace period first (graceful only), then the recovery delay.
   */
  reboot(
    ip: string,
    kind: RebootKind,
    recoveryDelayMs: readonly [number, number],
    gracePeriodMs: readonly [number, number],
    cause: RebootCause,
  ): boolean {
    const state = this.states.get(ip);
    if (state === undefined) throw new RangeError(`reboot: ${ip} is not a process IP`);
    if (!this.owner.alive) return false;
    if (state.dead) {
      this.stats.ignored++;
      this.world.emit("runner", "info", "reboot_ignored", { ip, kind, cause, reason: "already dead" });
      return false;
    }
    const incarnation = state.slot.incarnation;
    state.dead = true;
    this.dead++;
    assertAlwaysLessThanOrEqualTo(this.dead, this.states.size, REBOOT_ASSERTIONS.deadCountBound);
    const sim = this.world.engine.streams.sim;
    const engine = this.world.engine;
    if (kind === "graceful") {
      assertReachable(REBOOT_ASSERTIONS.gracefulPath);
      const graceMs = drawDelayMs(sim, gracePeriodMs);
      const drawnRecoveryMs = drawDelayMs(sim, recoveryDelayMs);
      if (this.skipped(state, PROCESS_FAULT_KINDS.gracefulShutdown)) return false;
      const recoveryMs = this.world.restartDelayMs(drawnRecoveryMs, recoveryDelayMs[0]);
      this.stats.graceful++;
      this.world.recordFault(PROCESS_FAULT_KINDS.gracefulShutdown, {
        ip,
        gracePeriodMs: graceMs,
        recoveryDelayMs: recoveryMs,
        cause,
      });
      if (incarnation !== null) {
        // The signal is delivered as the process's own event (same instant), so the shutdown code
        // it wakes runs as a step of that process, not of whoever asked for the reboot.
        engine.schedule(
          0,
          () => incarnation.beginShutdown(abortError("graceful shutdown: the process is being rebooted")),
          null,
          EventTag.lifecycle,
          incarnation,
        );
      }
      engine.schedule(
        msToUs(graceMs),
        () => this.forceKill(state, incarnation, recoveryMs, cause),
        null,
        EventTag.lifecycle,
        this.owner,
      );
      return true;
    }
    const wipe = kind === "crashAndWipe";
    assertReachable(REBOOT_ASSERTIONS.crashPath);
    const drawnRecoveryMs = drawDelayMs(sim, recoveryDelayMs);
    if (this.skipped(state, PROCESS_FAULT_KINDS.crash)) return false;
    const recoveryMs = this.world.restartDelayMs(drawnRecoveryMs, recoveryDelayMs[0]);
    if (wipe) this.stats.crashAndWipe++;
    else this.stats.crash++;
    this.world.recordFault(PROCESS_FAULT_KINDS.crash, { ip, wipe, recoveryDelayMs: recoveryMs, cause });
    if (incarnation !== null) this.world.crash(incarnation);
    this.world.storage.crash(ip);
    if (wipe) {
      assertReachable(REBOOT_ASSERTIONS.wipePath);
      this.world.storage.wipe(ip);
    }
    this.scheduleRestart(state, recoveryMs, cause);
    return true;
  }

  /** Whether the overrides skip this reboot (after its draws): the process then stays up. */
  private skipped(state: SlotState, kind: string): boolean {
    if (!this.world.skipFault(kind)) return false;
    state.dead = false;
    this.dead--;
    return true;
  }

  private forceKill(state: SlotState, incarnation: Incarnation | null, recoveryMs: number, cause: RebootCause): void {
    if (!this.owner.alive) return;
    const ip = state.slot.ip;
    // Still running: its run() has not returned, or a task of it still waits on an operation.
    const running = incarnation !== null && incarnation.alive && (!state.exited || incarnation.pendingCount > 0);
    this.world.recordFault(PROCESS_FAULT_KINDS.forceKill, { ip, running, cause });
    if (incarnation !== null) this.world.crash(incarnation); // closes what a clean exit left open too
    if (running) {
      this.stats.forceKills++;
      assertReachable(REBOOT_ASSERTIONS.forceKilled);
      this.world.storage.crash(ip);
    } else {
      this.stats.cleanExits++;
      assertReachable(REBOOT_ASSERTIONS.exitedWithinGrace);
    }
    this.scheduleRestart(state, recoveryMs, cause);
  }

  private scheduleRestart(state: SlotState, recoveryMs: number, cause: RebootCause): void {
    this.world.engine.schedule(
      msToUs(recoveryMs),
      () => {
        if (!this.owner.alive) return;
        const old = state.slot.incarnation;
        if (old !== null) this.world.crash(old); // safety net: nothing of the old instance survives
        this.world.recordFault(PROCESS_FAULT_KINDS.restart, { ip: state.slot.ip, cause });
        this.stats.restarts++;
        state.dead = false;
        state.exited = false;
        this.dead--;
        assertReachable(REBOOT_ASSERTIONS.restarted);
        this.boot(state.slot);
      },
      null,
      EventTag.lifecycle,
      this.owner,
    );
  }
}
