/**
 * The simulated world of one seed: the engine plus the shared facilities every actor sees
 * (trace timeline, network). Actors (process incarnations, workloads, fault injectors) reach it
 * through an `ActorScope`.
 */
import { abortError, type TraceFields, type TraceLevel } from "@moonpool/core";
import { Engine, msToUs, type SteppingMode } from "../engine/engine.ts";
import type { Incarnation } from "../engine/incarnation.ts";
import type { EventOwner } from "../engine/event-queue.ts";
import { EventTag } from "./event-tag.ts";
import {
  isInjectionKind,
  SIM_FAULT_EVENT_NAME,
  SIM_FAULT_SKIPPED_EVENT_NAME,
  TraceLog,
  type TraceEvent,
} from "./trace-log.ts";
import { SimNetwork } from "./network/index.ts";
import { SimStorage } from "./storage/storage.ts";
import { SimMetricStore } from "./metrics/store.ts";
import type { SimDns } from "./node-net/dns-table.ts";

export { EventTag };

export interface WorldOptions {
  readonly seed: number;
  readonly mode?: SteppingMode;
  readonly traceLevel?: TraceLevel;
  /** The level printed after the seed (`builder.printTrace`); below `traceLevel` it is kept for printing only. */
  readonly printLevel?: TraceLevel;
}

const noExtraSleep = (): number => 0;

export class World {
  readonly engine: Engine;
  readonly trace: TraceLog;
  readonly network: SimNetwork;
  /** The disks of every IP (files survive reboots of their IP's process). */
  readonly storage: SimStorage;
  /** Every metric sample recorded by simulated processes, on simulated time. */
  readonly metrics: SimMetricStore;
  /** Named text blocks simulated code attached to this seed's result (`ctx.attach`). */
  readonly attachments: { readonly name: string; readonly text: string }[] = [];
  /** The seed's host names and DNS faults (set by the runner once the topology is known). */
  dns: SimDns | null = null;

  constructor(options: WorldOptions) {
    this.engine = new Engine(options.seed, options.mode ?? "fast");
    this.trace = new TraceLog(options.traceLevel ?? "info", options.printLevel ?? options.traceLevel ?? "info");
    // Every captured fact is part of the timeline's identity: the trace hash covers it, so two
    // runs that differ only in what they reported still hash differently.
    const engine = this.engine;
    // Through a local: V8 allocates a function literal assigned straight to a property in the old
    // generation, where it would keep this world alive until the next full GC.
    const onEvent = (event: TraceEvent): void => {
      engine.mixString(event.name);
      engine.mixString(event.source);
      for (const key in event.fields) {
        engine.mixString(key);
        engine.mixString(String(event.fields[key]));
      }
    };
    this.trace.onEvent = onEvent;
    this.network = new SimNetwork(this);
    this.storage = new SimStorage(this);
    this.metrics = new SimMetricStore(() => engine.nowUs / 1000);
  }

  /**
   * Extra delay added to every sleep of the actor at `ip` (buggified delay; installed by network
   * chaos, reset to none by recovery mode).
   */
  extraSleepUs: (ip: string) => number = () => 0;

  /**
   * Owner of the events chaos schedules on its own behalf (partition expiries, the chaos
   * cutoff). The runner marks it dead once the run phase is over, so those events are purged
   * instead of keeping the settle phase busy.
   */
  readonly faultOwner: { readonly actor: string; alive: boolean } = { actor: "sim", alive: true };

  /** True once `enterRecoveryMode()` ran: configuration-driven faults are off for good. */
  inRecoveryMode = false;
  private readonly recoveryHooks: (() => void)[] = [];

  /**
   * Registers what recovery mode must switch off besides the network (storage, ...). Hooks run
   * in registration order, once, after the network's.
   */
  onRecoveryMode(hook: () => void): void {
    this.recoveryHooks.push(hook);
  }

  /**
   * The chaos cutoff: no new fault of any configuration-driven family from now on, every
   * partition healed (both directions, each a `partition_healed` event), no more buggified sleep
   * delay or clock drift. Damage already done stays: closed connections, delayed bytes, clogs and
   * clocks already ahead run their course. Idempotent.
   */
  enterRecoveryMode(): void {
    if (this.inRecoveryMode) return;
    this.inRecoveryMode = true;
    this.extraSleepUs = noExtraSleep;
    this.network.enterRecoveryMode();
    for (const hook of this.recoveryHooks) hook();
  }

  get nowMs(): number {
    return this.engine.nowUs / 1000;
  }

  /** Records a fact for `source` at the current simulated time. */
  emit(source: string, level: TraceLevel, name: string, fields: TraceFields = {}): void {
    this.trace.record(this.nowMs, source, level, name, fields);
  }

  /** Called when a spawned task's body rejects (not by cancellation or shutdown); null: only traced. */
  onTaskFailed: ((actor: string, task: string, error: unknown) => void) | null = null;

  /**
   * Called with an exception that nothing caught in the code of `owner`, thrown from `where` (a
   * socket listener run from a network callback): in Node, an uncaught exception. Null: it propagates.
   */
  onUncaught: ((owner: EventOwner, error: unknown, where: string) => void) | null = null;

  /** Reports an uncaught exception of `owner` (see `onUncaught`). */
  uncaught(owner: EventOwner, error: unknown, where: string): void {
    if (this.onUncaught === null) throw error;
    this.onUncaught(owner, error, where);
  }

  /**
   * Fault occurrences to leave out, by ordinal: the n-th injected fault of the run (0-based,
   * skipped ones included) is the one `recordFault` or `skipFault` sees with `faultOrdinal === n`.
   * Null: none (a shrunk run's `faults.skip` override sets it).
   */
  faultSkips: ReadonlySet<number> | null = null;
  /** Injected faults recorded or skipped so far: the ordinal of the next one. */
  faultOrdinal = 0;
  /**
   * Reboots (by fault ordinal) whose process restarts after the shortest delay of its recovery
   * range instead of the drawn one (the draw is still made). Null: none (`restart.min` override).
   */
  quickRestarts: ReadonlySet<number> | null = null;

  /** The recovery delay of the reboot about to be recorded: `drawnMs`, or `minMs` when the overrides say so. */
  restartDelayMs(drawnMs: number, minMs: number): number {
    return this.quickRestarts?.has(this.faultOrdinal) === true ? Math.min(drawnMs, minMs) : drawnMs;
  }

  /**
   * Asked by a fault site once it has made every draw of a fault and before it applies it: true
   * when the overrides skip this occurrence (the site then leaves it out and records nothing).
   * The draws stay made, so the stream continues as it would have with the fault.
   */
  skipFault(kind: string): boolean {
    const skips = this.faultSkips;
    if (skips === null || !skips.has(this.faultOrdinal)) return false;
    this.trace.record(this.nowMs, "sim", "info", SIM_FAULT_SKIPPED_EVENT_NAME, { kind, ordinal: this.faultOrdinal });
    this.faultOrdinal++;
    return true;
  }

  /** A built-in fault: a `sim_fault` event with `source = "sim"` and a `kind`. */
  recordFault(kind: string, fields: TraceFields = {}): void {
    if (isInjectionKind(kind)) this.faultOrdinal++;
    this.trace.record(this.nowMs, "sim", "info", SIM_FAULT_EVENT_NAME, { kind, ...fields });
  }

  /**
   * Crash: the incarnation stops at the await it is suspended on (nothing settles, no `finally`
   * runs) and every connection it owned is reset.
   */
  crash(incarnation: Incarnation): void {
    if (!incarnation.alive) return;
    incarnation.kill();
    this.network.resetConnectionsOf(incarnation);
  }

  /**
   * Graceful shutdown: abort `ctx.shutdown`, reject the abortable operations it waits on with an
   * `AbortError` so it can flush, then crash it if it is still alive after `gracePeriodMs`.
   * `onForceKill` runs when the grace period expired with the process still alive.
   */
  shutdownGracefully(incarnation: Incarnation, gracePeriodMs: number, onForceKill?: () => void): void {
    if (!incarnation.alive) return;
    incarnation.beginShutdown(abortError("graceful shutdown"));
    this.engine.schedule(
      msToUs(gracePeriodMs),
      () => {
        if (!incarnation.alive) return;
        this.crash(incarnation);
        onForceKill?.();
      },
      null,
      EventTag.lifecycle,
      null,
    );
  }
}
