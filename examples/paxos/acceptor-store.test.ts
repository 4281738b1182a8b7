/**
 * The acceptor's durable log on the production file system (`ProductionStorage` in a temporary
 * directory): what was appended comes back after a reopen, a damaged tail marks the log damaged
 * for good, and a failed sync makes the next append rewrite the whole state instead of appending
 * after unknown bytes.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IoError, OpenOptions, ProductionStorage, type StorageFile, type StorageProvider } from "@moonpool/core";
import { AcceptorStore, decodeLog, encodeRecord, LOG_PATH } from "./acceptor-store.ts";

/** A storage whose files fail their next `sync()` when `failNextSync` is set. */
class FlakySyncStorage implements StorageProvider {
  failNextSync = false;
  constructor(private readonly inner: StorageProvider) {}
  async open(path: string, options: OpenOptions): Promise<StorageFile> {
    const file = await this.inner.open(path, options);
    return {
      path: file.path,
      read: (offset, length) => file.read(offset, length),
      write: (offset, bytes) => file.write(offset, bytes),
      sync: async () => {
        if (this.failNextSync) {
          this.failNextSync = false;
          throw new IoError("EIO", "injected sync failure");
        }
        return file.sync();
      },
      size: () => file.size(),
      setLength: (n) => file.setLength(n),
      close: () => file.close(),
    };
  }
  exists(path: string): Promise<boolean> {
    return this.inner.exists(path);
  }
  delete(path: string): Promise<void> {
    return this.inner.delete(path);
  }
  rename(from: string, to: string): Promise<void> {
    return this.inner.rename(from, to);
  }
  list(prefix?: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
}

describe("acceptor store", () => {
  let dir: string;
  let storage: ProductionStorage;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "moonpool-paxos-store-"));
    storage = new ProductionStorage({ root: dir });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("recovers promises, accepted proposals and the proposer's round after a reopen", async () => {
    const { store, recovery } = await AcceptorStore.open(storage);
    expect(recovery.records).toBe(0);
    await store.append({ t: "round", round: 3 });
    await store.append({ t: "promise", ballot: 49 });
    await store.append({ t: "accept", ballot: 49, slot: 0, value: "a" });
    await store.append({ t: "accept", ballot: 65, slot: 0, value: "b" });
    await store.append({ t: "promise", ballot: 33 }); // lower: a promise never shrinks
    await store.close();

    const again = await AcceptorStore.open(storage);
    expect(again.recovery.records).toBe(5);
    expect(again.recovery.state.promised).toBe(65);
    expect(again.recovery.state.round).toBe(3);
    expect([...again.recovery.state.accepted]).toEqual([[0, { ballot: 65, value: "b" }]]);
    await again.store.close();
  });

  it("marks a log with a damaged tail damaged, durably, and keeps its valid prefix", async () => {
    const { store } = await AcceptorStore.open(storage);
    await store.append({ t: "promise", ballot: 17 });
    await store.append({ t: "accept", ballot: 17, slot: 0, value: "a" });
    await store.close();
    // Garbage after the last good record: a torn write, or a synced record the disk damaged (the
    // two look alike, so both count as damage).
    const file = await storage.open(LOG_PATH, OpenOptions.readWrite);
    const torn = encodeRecord({ t: "promise", ballot: 999 }).subarray(0, 11);
    await file.write(await file.size(), torn);
    await file.sync();
    await file.close();

    const reopened = await AcceptorStore.open(storage);
    expect(reopened.recovery.truncatedBytes).toBe(11);
    expect(reopened.recovery.state.damaged).toBe(true);
    expect(reopened.recovery.state.promised).toBe(17);
    await reopened.store.append({ t: "promise", ballot: 33 });
    await reopened.store.close();
    // The garbage is gone (a snapshot replaced the log), and the damage is remembered.
    const again = await AcceptorStore.open(storage);
    expect(again.recovery.truncatedBytes).toBe(0);
    expect(again.recovery.state).toMatchObject({ damaged: true, promised: 33 });
    expect([...again.recovery.state.accepted]).toEqual([[0, { ballot: 17, value: "a" }]]);
    await again.store.close();
  });

  it("a log that ends cleanly is not damaged", async () => {
    const { store } = await AcceptorStore.open(storage);
    await store.append({ t: "promise", ballot: 17 });
    await store.close();
    const { store: reopened, recovery } = await AcceptorStore.open(storage);
    expect(recovery).toMatchObject({ truncatedBytes: 0, records: 1 });
    expect(recovery.state.damaged).toBe(false);
    await reopened.close();
  });

  it("stops decoding at a record whose checksum does not match", () => {
    const good = encodeRecord({ t: "promise", ballot: 1 });
    const bad = encodeRecord({ t: "promise", ballot: 2 });
    bad[bad.length - 2]! ^= 0x01; // one flipped bit in the JSON
    const log = new Uint8Array([...good, ...bad, ...encodeRecord({ t: "promise", ballot: 3 })]);
    const { records, validBytes } = decodeLog(log);
    expect(records).toEqual([{ t: "promise", ballot: 1 }]);
    expect(validBytes).toBe(good.length);
  });

  it("after a failed sync, rewrites the whole state instead of appending after unknown bytes", async () => {
    const flaky = new FlakySyncStorage(storage);
    const { store } = await AcceptorStore.open(flaky);
    await store.append({ t: "promise", ballot: 17 });
    flaky.failNextSync = true;
    await expect(store.append({ t: "accept", ballot: 17, slot: 0, value: "lost" })).rejects.toThrow(/EIO/);
    await store.append({ t: "accept", ballot: 33, slot: 1, value: "kept" });
    await store.close();

    const { recovery } = await AcceptorStore.open(storage);
    expect(recovery.state.promised).toBe(33);
    // The failed append was never acknowledged; the rewrite holds only what was durable plus the new record.
    expect([...recovery.state.accepted]).toEqual([[1, { ballot: 33, value: "kept" }]]);
    expect(await storage.list()).toEqual([LOG_PATH]);
  });
});
