/**
 * How an aborted task stops in production: the same rule as the simulator. Once a task's handle is
 * aborted, every operation made through the providers of its scope never settles, so the task
 * stops at its next such `await` and its `finally` blocks do not run. Timers are cleared and late
 * results are dropped (late connections are closed), so nothing leaks from the stopped task.
 */

/** The kill switch of one spawned task (internal to the production providers). */
export class Halt {
  private stopped = false;
  private readonly callbacks = new Set<() => void>();

  get halted(): boolean {
    return this.stopped;
  }

  /** Stops the task: runs the registered callbacks once. */
  halt(): void {
    if (this.stopped) return;
    this.stopped = true;
    const callbacks = [...this.callbacks];
    this.callbacks.clear();
    for (const callback of callbacks) callback();
  }

  /** Runs `callback` when the task is stopped; returns the function that unregisters it. */
  onHalt(callback: () => void): () => void {
    this.callbacks.add(callback);
    return () => {
      this.callbacks.delete(callback);
    };
  }
}

/** A promise that never settles (what a stopped task is left awaiting). */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

/**
 * Runs `start()` unless `halt` has stopped, and settles like it unless `halt` stops first. A result
 * that arrives after the stop is handed to `discard` (to close a late socket) and then dropped.
 */
export function gate<T>(halt: Halt | undefined, start: () => Promise<T>, discard?: (value: T) => void): Promise<T> {
  if (halt === undefined) return start();
  if (halt.halted) return never<T>();
  return new Promise<T>((resolve, reject) => {
    start().then(
      (value) => {
        if (!halt.halted) resolve(value);
        else discard?.(value);
      },
      (error: unknown) => {
        if (!halt.halted) reject(error);
      },
    );
  });
}
