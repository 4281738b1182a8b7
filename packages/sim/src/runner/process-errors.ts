/**
 * Node's crash semantics for simulated code: an uncaught exception, or a rejection still unhandled
 * once the step's microtasks ran (Node checks after every macrotask), ends the process whose code
 * made it at that instant, unless that process listens for it with `process.on(...)` (then, as in
 * Node, nothing crashes). By default the seed also fails; with `processErrors("crashProcess")` the
 * crash is only traced (`process_crashed`), and the workload and invariants judge its effect.
 */
import type { EventOwner } from "../engine/event-queue.ts";
import type { Incarnation } from "../engine/incarnation.ts";
import { dispatchProcessError } from "../world/node-runtime/process-events.ts";
import type { NodeRuntime } from "../world/node-runtime/runtime.ts";
import type { VirtualProcess } from "../world/node-runtime/virtual-process.ts";
import type { World } from "../world/world.ts";
import type { SeedFailureKind } from "./seed-result.ts";
import { thrownFields } from "./thrown.ts";

/** What a process error does to the seed: fail it (default), or only end the process. */
export type ProcessErrorMode = "failSeed" | "crashProcess";

export const PROCESS_ERROR_MODES: readonly ProcessErrorMode[] = ["failSeed", "crashProcess"];

export type ProcessErrorKind = "uncaughtException" | "unhandledRejection";

/** The trace event of a process ended by its own error. */
export const PROCESS_CRASHED_EVENT_NAME = "process_crashed";

interface PendingRejection {
  readonly reason: unknown;
  readonly promise: Promise<unknown>;
  readonly owner: EventOwner | null;
}

/** The one seed's process errors: reported by Node or the runtime, handled at the step that made them. */
export class ProcessErrors {
  private pending: PendingRejection[] = [];

  /** The seed's virtual Node runtime, whose processes may listen for their own errors (null: none). */
  runtime: NodeRuntime | null = null;

  constructor(
    private readonly world: World,
    private readonly mode: ProcessErrorMode,
    /** The seed's processes: an error of one's current incarnation ends it. */
    private readonly processes: readonly { readonly ip: string; readonly incarnation: Incarnation | null }[],
    private readonly seed: {
      fail(kind: SeedFailureKind, message: string, extra: { actor?: string; stack?: string }): void;
    },
  ) {
    world.onUncaught = this.onUncaught;
    // Through a local: a function literal assigned straight to a property is allocated old (see World).
    const afterRejectionCheck = (): void => this.handlePending();
    world.engine.afterRejectionCheck = afterRejectionCheck;
  }

  /** Node reported a rejection nobody handled: it is the current step's (handled by `handlePending`). */
  rejection(reason: unknown, promise: Promise<unknown>): void {
    this.pending.push({ reason, promise, owner: this.world.engine.currentOwner });
  }

  /** Handles the rejections Node reported since the last call, in the order it reported them. */
  handlePending(): void {
    if (this.pending.length === 0) return;
    const pending = this.pending;
    this.pending = [];
    for (const p of pending) this.handle("unhandledRejection", p.owner, p.reason, p.promise, null);
  }

  /** An exception nothing caught, thrown from `where` by code of `owner` (null: the current step's owner). */
  readonly onUncaught = (owner: EventOwner | null, error: unknown, where: string | null): void => {
    this.handle("uncaughtException", owner ?? this.world.engine.currentOwner, error, undefined, where);
  };

  /** An exception thrown by a callback the virtual Node runtime called for `process` (a timer's). */
  readonly ofRuntime = (process: VirtualProcess, error: unknown, where: string): void =>
    this.onUncaught(process.owner, error, where);

  /**
   * A process's `run()` rejected. In Node that is an unhandled rejection, so in "crashProcess" mode
   * the process only crashes (true); in "failSeed" mode the caller fails the seed (false).
   */
  runRejected(incarnation: Incarnation, ip: string, message: string): boolean {
    if (this.mode !== "crashProcess") return false;
    this.crash(incarnation, ip, "unhandledRejection", message);
    return true;
  }

  private handle(
    kind: ProcessErrorKind,
    owner: EventOwner | null,
    error: unknown,
    promise: Promise<unknown> | undefined,
    where: string | null,
  ): void {
    // A dead process runs nothing: what surfaces after its crash is not its own any more.
    if (owner !== null && !owner.alive) return;
    const process = owner !== null ? (this.runtime?.processOf(owner) ?? null) : null;
    let thrown = error;
    if (process !== null) {
      const engine = this.world.engine;
      const previous = engine.currentOwner;
      engine.currentOwner = owner;
      try {
        const outcome = dispatchProcessError(process, kind, error, promise);
        if (outcome.handled) return;
        thrown = outcome.error;
      } finally {
        engine.currentOwner = previous;
      }
    }
    const { message, stack } = thrownFields(thrown);
    const actor = owner?.actor;
    const what = kind === "unhandledRejection" ? "unhandled promise rejection" : "uncaught exception";
    const text =
      where !== null ? `${what} in ${where} of ${actor}: ${message}` : `${what} in simulated code: ${message}`;
    const slot = owner !== null ? this.processes.find((p) => p.incarnation === owner) : undefined;
    if (slot !== undefined) {
      this.crash(slot.incarnation!, slot.ip, kind, message);
      if (this.mode === "crashProcess") return;
    }
    this.seed.fail(kind, text, { ...(actor !== undefined && actor !== "runner" ? { actor } : {}), stack });
  }

  /** The process ends here, as a Node process does on an error it does not handle. */
  private crash(incarnation: Incarnation, ip: string, kind: ProcessErrorKind, message: string): void {
    this.world.emit(incarnation.actor, "error", PROCESS_CRASHED_EVENT_NAME, { ip, kind, message });
    this.world.crash(incarnation);
  }
}
