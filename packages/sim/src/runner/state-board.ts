/** A per-seed key/value board shared by every actor (publish facts, read them elsewhere). */
export class StateBoard {
  private readonly values = new Map<string, unknown>();

  publish<T>(key: string, value: T): void {
    this.values.set(key, value);
  }

  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  contains(key: string): boolean {
    return this.values.has(key);
  }

  keys(): string[] {
    return [...this.values.keys()];
  }
}
