/**
 * The service's storage: an in-memory map whose writes and reads fail now and then under
 * buggify (in production `buggify` is always false), the way a real database call can.
 */
import { buggify } from "@moonpool/core";

export class StoreError extends Error {}

export class ItemStore {
  private readonly items = new Map<string, string>();
  private nextId = 1;

  newId(): string {
    return `item-${this.nextId++}`;
  }

  /** Stores `value` under `id`; throws `StoreError` when the write fails. */
  write(id: string, value: string): void {
    if (buggify("web-service: store write fails")) throw new StoreError("write failed");
    this.items.set(id, value);
  }

  /** The value stored under `id`, or undefined; throws `StoreError` when the read fails. */
  read(id: string): string | undefined {
    if (buggify("web-service: store read fails")) throw new StoreError("read failed");
    return this.items.get(id);
  }
}
