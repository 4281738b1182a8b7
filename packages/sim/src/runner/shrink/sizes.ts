/**
 * `ctx.size(name, n)`: the hook by which a workload exposes its size (operations, clients,
 * polls...) to the shrinker. It returns `n` unless the run's overrides lower that size, and
 * records the value each name got so the seed's result can say how big the run was.
 */
import { InvalidConfiguration } from "@moonpool/core";

export class WorkloadSizes {
  private readonly used = new Map<string, number>();

  constructor(private readonly overrides: Readonly<Record<string, number>>) {}

  size(name: string, n: number): number {
    if (typeof name !== "string" || !/^[A-Za-z0-9_.-]+$/.test(name)) {
      throw new InvalidConfiguration(
        `ctx.size(name, n): name must be letters, digits, '_', '.' or '-', got ${JSON.stringify(name)}`,
      );
    }
    if (!Number.isSafeInteger(n) || n < 0)
      throw new InvalidConfiguration(`ctx.size('${name}', n): n must be a whole number >= 0, got ${String(n)}`);
    const lowered = this.overrides[name];
    const value = lowered !== undefined && lowered < n ? lowered : n;
    // Several actors may ask for the same name: the run's size is the largest they got.
    this.used.set(name, Math.max(this.used.get(name) ?? 0, value));
    return value;
  }

  /** Name → value, sorted by name; undefined when no actor asked. */
  report(): Readonly<Record<string, number>> | undefined {
    if (this.used.size === 0) return undefined;
    return Object.fromEntries([...this.used.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }
}
