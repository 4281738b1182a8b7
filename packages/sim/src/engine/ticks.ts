/**
 * Counting `process.nextTick` for tickHopSafe quiescence detection (docs/decisions.md D1, D3).
 *
 * The engine knows the microtask queue is empty when a `nextTick` it queued from inside a
 * microtask runs. User code may queue its own ticks, which then run around ours; we count them
 * and go round again until none arrive. Test runners swap `process.nextTick` on their own (Vitest
 * does, around console output), so we install an accessor property: reads always return the
 * counting wrapper, assignments only replace the function the wrapper delegates to.
 */

type NextTick = typeof process.nextTick;

export class TickCounter {
  /** User (non-engine) nextTick calls since install. */
  count = 0;
  private delegate: NextTick;
  private readonly original: PropertyDescriptor | undefined;
  private readonly wrapper: NextTick;
  private installed = false;

  constructor(private readonly realNextTick: NextTick) {
    this.original = Object.getOwnPropertyDescriptor(process, "nextTick");
    this.delegate = process.nextTick;
    const self = this;
    this.wrapper = function countedNextTick(this: unknown, ...args: unknown[]) {
      self.count++;
      return (self.delegate as (...a: unknown[]) => void).apply(process, args);
    } as NextTick;
  }

  install(): void {
    if (this.installed) return;
    this.installed = true;
    this.delegate = process.nextTick === this.wrapper ? this.realNextTick : process.nextTick;
    const self = this;
    Object.defineProperty(process, "nextTick", {
      configurable: true,
      enumerable: this.original?.enumerable ?? true,
      get: () => self.wrapper,
      set: (fn: NextTick) => {
        self.delegate = fn === self.wrapper ? self.realNextTick : fn;
      },
    });
  }

  uninstall(): void {
    if (!this.installed) return;
    this.installed = false;
    if (this.original !== undefined) {
      // Put back whatever the last assignment wanted, as a plain data property.
      Object.defineProperty(process, "nextTick", { ...this.original, value: this.delegate });
    } else {
      delete (process as { nextTick?: NextTick }).nextTick;
    }
  }
}
