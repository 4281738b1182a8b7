/**
 * The shared half of every `TaskHandle`: the outcome promise, `finish`, `join` and awaiting the
 * handle. Providers (production, simulation) add how a task is actually stopped in `abort()`.
 */
import { TaskCancelled } from "./errors.ts";
import type { TaskHandle, TaskOutcome } from "./providers.ts";

export abstract class TaskHandleBase<T> implements TaskHandle<T> {
  finished = false;
  readonly outcome: Promise<TaskOutcome<T>>;
  private settle!: (outcome: TaskOutcome<T>) => void;

  constructor(readonly name: string) {
    this.outcome = new Promise<TaskOutcome<T>>((resolve) => {
      this.settle = resolve;
    });
  }

  abstract abort(): void;

  /** Settles the outcome once; later calls are ignored (an abort wins over a late result). */
  finish(outcome: TaskOutcome<T>): void {
    if (this.finished) return;
    this.finished = true;
    this.settle(outcome);
  }

  join(): Promise<T> {
    return this.outcome.then((outcome) => {
      if (outcome.status === "ok") return outcome.value;
      if (outcome.status === "cancelled") throw new TaskCancelled(this.name);
      throw outcome.error;
    });
  }

  // biome-ignore lint/suspicious/noThenProperty: a task handle is awaitable on purpose (PromiseLike).
  then<R1 = TaskOutcome<T>, R2 = never>(
    onFulfilled?: ((value: TaskOutcome<T>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): PromiseLike<R1 | R2> {
    return this.outcome.then(onFulfilled, onRejected);
  }
}
