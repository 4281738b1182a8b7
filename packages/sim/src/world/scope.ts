/**
 * What an actor's code holds: the providers bound to one incarnation (and, inside a spawned
 * task, to that task). Providers are created lazily: a spawned task that only sleeps should not
 * pay for a network object (heap per suspended task is a measured target).
 */
import type {
  MetricsProvider,
  NetworkProvider,
  RandomProvider,
  StorageProvider,
  TaskProvider,
  TaskScope,
  TimeProvider,
  TraceFields,
  Tracer,
} from "@moonpool/core";
import type { Incarnation, TaskState } from "../engine/incarnation.ts";
import type { World } from "./world.ts";
import { SimTime, type ProcessClock } from "./time.ts";
import { SimTask } from "./task.ts";
import { SimRandom } from "./random.ts";
import type { SimNetworkProvider } from "./network/index.ts";
import type { SimStorageProvider } from "./storage/provider.ts";

export class ActorTracer implements Tracer {
  constructor(
    private readonly world: World,
    private readonly actor: string,
  ) {}
  trace(name: string, fields?: TraceFields): void {
    this.world.emit(this.actor, "trace", name, fields);
  }
  debug(name: string, fields?: TraceFields): void {
    this.world.emit(this.actor, "debug", name, fields);
  }
  info(name: string, fields?: TraceFields): void {
    this.world.emit(this.actor, "info", name, fields);
  }
  warn(name: string, fields?: TraceFields): void {
    this.world.emit(this.actor, "warn", name, fields);
  }
  error(name: string, fields?: TraceFields): void {
    this.world.emit(this.actor, "error", name, fields);
  }
}

export class ActorScope implements TaskScope {
  private timeProvider: SimTime | undefined;
  private taskProvider: SimTask | undefined;
  private randomProvider: SimRandom | undefined;
  private networkProvider: SimNetworkProvider | undefined;
  private storageProvider: SimStorageProvider | undefined;
  private tracer: ActorTracer | undefined;
  private taskSignal: AbortSignal | undefined;
  /** Aborted by `TaskHandle.abort()`; created on first use. */
  taskController: AbortController | undefined;

  constructor(
    readonly world: World,
    readonly incarnation: Incarnation,
    /** The spawned task this scope belongs to, or null for the incarnation's main code. */
    readonly taskState: TaskState | null,
    /** The process's clock (drift); shared by the incarnation and its tasks. */
    readonly clock: ProcessClock,
    /** The actor's IP, used as the local address for connections. */
    readonly ip: string,
  ) {}

  get actor(): string {
    return this.incarnation.actor;
  }

  get time(): TimeProvider {
    return (this.timeProvider ??= new SimTime(this));
  }
  get task(): TaskProvider {
    return (this.taskProvider ??= new SimTask(this));
  }
  get random(): RandomProvider {
    return (this.randomProvider ??= new SimRandom(this.world));
  }
  get network(): NetworkProvider {
    return (this.networkProvider ??= this.world.network.providerFor(this));
  }
  /** The files of this actor's IP (shared by every incarnation and task on it). */
  get storage(): StorageProvider {
    return (this.storageProvider ??= this.world.storage.providerFor(this));
  }
  get trace(): Tracer {
    return (this.tracer ??= new ActorTracer(this.world, this.incarnation.actor));
  }
  /** This incarnation's metrics (shared by its tasks; a reboot starts counters from zero). */
  get metrics(): MetricsProvider {
    return this.world.metrics.providerFor(this.incarnation, this.incarnation.actor);
  }
  /** Aborted when this task is aborted or its process shuts down. */
  get signal(): AbortSignal {
    if (this.taskSignal === undefined) {
      if (this.taskState === null) this.taskSignal = this.incarnation.shutdown;
      else {
        this.taskController ??= new AbortController();
        this.taskSignal = AbortSignal.any([this.incarnation.shutdown, this.taskController.signal]);
      }
    }
    return this.taskSignal;
  }

  /** A scope for a task spawned from this one (same incarnation and clock). */
  child(task: TaskState): ActorScope {
    return new ActorScope(this.world, this.incarnation, task, this.clock, this.ip);
  }
}
