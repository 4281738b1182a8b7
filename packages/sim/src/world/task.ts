/**
 * `ctx.task`: spawned tasks, `yieldNow` and channels (`./channel.ts`). A task starts at a seeded position among the events
 * of the current instant (like a scheduler picking a ready task), and stops where it waits when
 * aborted or when its process crashes.
 */
import {
  isAbortError,
  TaskCancelled,
  TaskHandleBase,
  type Channel,
  type TaskHandle,
  type TaskProvider,
  type TaskScope,
} from "@moonpool/core";
import { Incarnation, TaskState, never, type PendingOp } from "../engine/incarnation.ts";
import { EventTag } from "./event-tag.ts";
import type { ActorScope } from "./scope.ts";
import { SimChannel } from "./channel.ts";

function fireYield(op: PendingOp<void>): void {
  Incarnation.resolve(op, undefined);
}

class SimTaskHandle<T> extends TaskHandleBase<T> {
  constructor(
    name: string,
    private readonly scope: ActorScope,
  ) {
    super(name);
  }

  /** Drops the task's pending operations: it stops where it waits, no `finally` runs. */
  abort(): void {
    if (this.finished) return;
    const task = this.scope.taskState!;
    this.scope.taskController?.abort(new TaskCancelled(this.name));
    this.scope.incarnation.abortTask(task);
    this.finish({ status: "cancelled" });
  }
}

interface TaskStart {
  readonly scope: ActorScope;
  readonly handle: SimTaskHandle<unknown>;
  readonly body: (scope: TaskScope) => Promise<unknown>;
}

function startTask(start: TaskStart): void {
  const { scope, handle, body } = start;
  if (!scope.incarnation.alive || !scope.taskState!.alive) return;
  let result: Promise<unknown>;
  try {
    result = Promise.resolve(body(scope));
  } catch (error) {
    result = Promise.reject(error);
  }
  result.then(
    (value) => {
      if (scope.taskState!.alive && scope.incarnation.alive) handle.finish({ status: "ok", value });
    },
    (error: unknown) => {
      if (!scope.taskState!.alive || !scope.incarnation.alive) return;
      // A failed task is never silent: the timeline says which task failed and why.
      scope.world.emit(scope.actor, "warn", "task_failed", {
        task: handle.name,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
      handle.finish({ status: "failed", error });
      // Aborting a task or shutting its process down gracefully is an expected way out.
      const expected =
        error instanceof TaskCancelled ||
        (isAbortError(error) && (scope.incarnation.shuttingDown || scope.taskController?.signal.aborted === true));
      if (!expected) scope.world.onTaskFailed?.(scope.actor, handle.name, error);
    },
  );
}

export class SimTask implements TaskProvider {
  constructor(private readonly scope: ActorScope) {}

  spawn<T>(name: string, body: (scope: TaskScope) => Promise<T>): TaskHandle<T> {
    const incarnation = this.scope.incarnation;
    const child = this.scope.child(new TaskState(name, incarnation));
    const handle = new SimTaskHandle<T>(name, child);
    if (!incarnation.alive) return handle; // a dead process starts nothing; the handle never settles
    const start: TaskStart = { scope: child, handle: handle as SimTaskHandle<unknown>, body };
    this.scope.world.engine.schedule(0, startTask, start, EventTag.taskStart, incarnation);
    return handle;
  }

  yieldNow(): Promise<void> {
    const op = this.scope.incarnation.begin<void>(this.scope.taskState, true, "yieldNow()");
    if (op === null) return never<void>();
    this.scope.world.engine.schedule(0, fireYield, op, EventTag.yield, this.scope.incarnation);
    return op.promise;
  }

  channel<T>(name: string): Channel<T> {
    return new SimChannel<T>(this.scope, name);
  }
}
