/**
 * The storage contract (`@moonpool/core` storage.ts), as one suite run against every provider:
 * the node:fs provider in a temporary directory (storage-contract.test.ts here) and the simulated
 * provider with faults off (packages/sim/test/storage-contract.test.ts).
 *
 * A harness runs a body against its provider: the production harness just calls it, the
 * simulator's runs it as an actor while stepping the engine. Expectations inside a body throw,
 * which rejects the run and fails the test. Bytes never written (holes) are never compared: the
 * contract leaves them unspecified.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IoError, OpenOptions, type StorageFile, type StorageProvider } from "@moonpool/core";

export interface StorageHarness {
  /** Runs `body` with the provider under test; settles as `body` does. */
  run<T>(body: (storage: StorageProvider) => Promise<T>): Promise<T>;
  /** Releases what the harness holds (temporary directory, ...). */
  dispose(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const text = (s: string): Uint8Array => encoder.encode(s);
const str = (b: Uint8Array): string => decoder.decode(b);

/** Resolves with the `IoError` code `promise` rejects with (fails the test if it resolves). */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof IoError) return error.code;
    throw error;
  }
  throw new Error("expected an IoError, but the operation succeeded");
}

async function writeFile(s: StorageProvider, path: string, content: string): Promise<void> {
  const f = await s.open(path, OpenOptions.createWrite);
  await f.write(0, text(content));
  await f.sync();
  await f.close();
}

async function readFile(s: StorageProvider, path: string): Promise<string> {
  const f = await s.open(path, OpenOptions.readOnly);
  const size = await f.size();
  const bytes = await f.read(0, size);
  await f.close();
  return str(bytes);
}

/** Byte equality with a short message (deep equality on large arrays is slow and verbose). */
function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  let firstDiff = -1;
  for (let i = 0; i < actual.length && firstDiff < 0; i++) if (actual[i] !== expected[i]) firstDiff = i;
  expect(firstDiff, "index of the first differing byte").toBe(-1);
}

function pattern(sizeBytes: number, salt: number): Uint8Array {
  const out = new Uint8Array(sizeBytes);
  for (let i = 0; i < sizeBytes; i++) out[i] = (i * 31 + salt * 7 + (i >>> 8)) & 0xff;
  return out;
}

export function storageContractSuite(name: string, createHarness: () => Promise<StorageHarness>): void {
  describe(`storage contract: ${name}`, () => {
    let harness: StorageHarness;
    beforeEach(async () => {
      harness = await createHarness();
    });
    afterEach(async () => {
      await harness.dispose();
    });
    const run = <T>(body: (s: StorageProvider) => Promise<T>): Promise<T> => harness.run(body);

    it("writes, syncs and reads back; reads stop at the end of the file", async () => {
      await run(async (s) => {
        const f = await s.open("data.bin", OpenOptions.readWriteCreate);
        expect(f.path).toBe("data.bin");
        await f.write(0, text("hello world"));
        await f.sync();
        expect(await f.size()).toBe(11);
        expect(str(await f.read(0, 5))).toBe("hello");
        expect(str(await f.read(6, 100))).toBe("world");
        expect((await f.read(11, 10)).length).toBe(0);
        expect((await f.read(500, 10)).length).toBe(0);
        expect((await f.read(3, 0)).length).toBe(0);
        await f.close();
        expect(await readFile(s, "data.bin")).toBe("hello world");
      });
    });

    it("overwrites in place and extends past the end", async () => {
      await run(async (s) => {
        const f = await s.open("f", OpenOptions.readWriteCreate);
        await f.write(0, text("aaaaaaaaaa"));
        await f.write(3, text("BBB"));
        expect(str(await f.read(0, 10))).toBe("aaaBBBaaaa");
        await f.write(8, text("CCCC"));
        expect(await f.size()).toBe(12);
        expect(str(await f.read(0, 12))).toBe("aaaBBBaaCCCC");
        // A write far past the end leaves a hole (content unspecified) and sets the size.
        await f.write(10_000, text("tail"));
        expect(await f.size()).toBe(10_004);
        expect(str(await f.read(10_000, 4))).toBe("tail");
        expect(str(await f.read(0, 12))).toBe("aaaBBBaaCCCC");
        await f.close();
      });
    });

    it("round-trips large unaligned writes across many sectors, from another handle", async () => {
      await run(async (s) => {
        const big = pattern(300_000, 1);
        const f = await s.open("big", OpenOptions.readWriteCreate);
        await f.write(777, big);
        await f.sync();
        await f.close();
        const g = await s.open("big", OpenOptions.readOnly);
        expect(await g.size()).toBe(777 + big.length);
        expectBytes(await g.read(777, big.length), big);
        expectBytes(await g.read(777 + 1000, 5000), big.subarray(1000, 6000));
        await g.close();
      });
    });

    it("copies the bytes at the call: reusing the buffer does not change what was written", async () => {
      await run(async (s) => {
        const f = await s.open("copy", OpenOptions.readWriteCreate);
        const buffer = text("first");
        const pending = f.write(0, buffer);
        buffer.set(text("XXXXX"));
        await pending;
        expect(str(await f.read(0, 5))).toBe("first");
        // A Buffer too (its slice() is a view, not a copy).
        const nodeBuffer = Buffer.from("again");
        const second = f.write(0, nodeBuffer);
        nodeBuffer.write("YYYYY");
        await second;
        expect(str(await f.read(0, 5))).toBe("again");
        await f.close();
      });
    });

    it("open: ENOENT without create, EEXIST with createNew, create keeps content, truncate empties", async () => {
      await run(async (s) => {
        expect(await codeOf(s.open("missing", OpenOptions.readOnly))).toBe("ENOENT");
        expect(await codeOf(s.open("missing", OpenOptions.readWrite))).toBe("ENOENT");
        const created = await s.open("new", OpenOptions.createNewWrite);
        await created.write(0, text("content"));
        await created.sync();
        await created.close();
        expect(await codeOf(s.open("new", OpenOptions.createNewWrite))).toBe("EEXIST");
        const kept = await s.open("new", OpenOptions.readWriteCreate);
        expect(await kept.size()).toBe(7);
        await kept.close();
        const emptied = await s.open("new", OpenOptions.createWrite);
        expect(await emptied.size()).toBe(0);
        await emptied.close();
        expect(await readFile(s, "new")).toBe("");
      });
    });

    it("open rejects option sets that allow nothing or contradict each other with EINVAL", async () => {
      await run(async (s) => {
        await writeFile(s, "f", "x");
        expect(await codeOf(s.open("f", {}))).toBe("EINVAL");
        expect(await codeOf(s.open("f", { read: true, create: true }))).toBe("EINVAL");
        expect(await codeOf(s.open("f", { read: true, truncate: true }))).toBe("EINVAL");
        expect(await codeOf(s.open("f", { read: true, createNew: true }))).toBe("EINVAL");
        expect(await codeOf(s.open("f", { append: true, truncate: true }))).toBe("EINVAL");
        expect(await readFile(s, "f")).toBe("x");
      });
    });

    it("rejects paths that are empty, absolute, or have empty, '.' or '..' segments with EINVAL", async () => {
      await run(async (s) => {
        for (const bad of ["", "/abs", "a/../b", "../up", "a//b", "a/", "./a", ".", "a\\b", "nul\0"]) {
          expect(await codeOf(s.open(bad, OpenOptions.readWriteCreate)), bad).toBe("EINVAL");
          expect(await codeOf(s.exists(bad)), bad).toBe("EINVAL");
          expect(await codeOf(s.delete(bad)), bad).toBe("EINVAL");
          expect(await codeOf(s.rename("x", bad)), bad).toBe("EINVAL");
        }
        expect(await codeOf(s.open(`${"n".repeat(256)}`, OpenOptions.readWriteCreate))).toBe("ENAMETOOLONG");
        expect(await s.list()).toEqual([]);
      });
    });

    it("handles enforce their access mode and die when closed (EBADF); closing twice is harmless", async () => {
      await run(async (s) => {
        await writeFile(s, "f", "data");
        const readOnly = await s.open("f", OpenOptions.readOnly);
        expect(await codeOf(readOnly.write(0, text("x")))).toBe("EBADF");
        expect(await codeOf(readOnly.setLength(1))).toBe("EINVAL");
        await readOnly.sync(); // syncing a read-only handle is allowed (fsync on O_RDONLY works)
        await readOnly.close();
        const writeOnly = await s.open("f", { write: true });
        expect(await codeOf(writeOnly.read(0, 1))).toBe("EBADF");
        expect(await writeOnly.size()).toBe(4);
        await writeOnly.close();
        await writeOnly.close();
        expect(await codeOf(writeOnly.write(0, text("x")))).toBe("EBADF");
        expect(await codeOf(writeOnly.sync())).toBe("EBADF");
        expect(await codeOf(writeOnly.size())).toBe("EBADF");
        expect(await codeOf(writeOnly.setLength(0))).toBe("EBADF");
        expect(await readFile(s, "f")).toBe("data");
      });
    });

    it("rejects bad offsets, lengths and buffers with EINVAL", async () => {
      await run(async (s) => {
        const f = await s.open("f", OpenOptions.readWriteCreate);
        expect(await codeOf(f.read(-1, 1))).toBe("EINVAL");
        expect(await codeOf(f.read(0, 1.5))).toBe("EINVAL");
        expect(await codeOf(f.write(-1, text("x")))).toBe("EINVAL");
        expect(await codeOf(f.write(0, "text" as unknown as Uint8Array))).toBe("EINVAL");
        expect(await codeOf(f.setLength(-5))).toBe("EINVAL");
        await f.close();
      });
    });

    it("setLength truncates and extends; the kept bytes are intact", async () => {
      await run(async (s) => {
        const f = await s.open("f", OpenOptions.readWriteCreate);
        await f.write(0, text("0123456789"));
        await f.setLength(4);
        expect(await f.size()).toBe(4);
        expect(str(await f.read(0, 100))).toBe("0123");
        await f.setLength(2048);
        expect(await f.size()).toBe(2048);
        expect(str(await f.read(0, 4))).toBe("0123");
        expect((await f.read(0, 5000)).length).toBe(2048);
        await f.setLength(0);
        expect(await f.size()).toBe(0);
        await f.close();
      });
    });

    it("append mode writes at the end whatever the offset says", async () => {
      await run(async (s) => {
        await writeFile(s, "log", "one;");
        const f = await s.open("log", OpenOptions.appendCreate);
        await f.write(0, text("two;"));
        await f.write(1, text("three;"));
        await f.sync();
        expect(await f.size()).toBe(14);
        expect(await codeOf(f.read(0, 4))).toBe("EBADF");
        await f.close();
        expect(await readFile(s, "log")).toBe("one;two;three;");
        const g = await s.open("fresh.log", OpenOptions.appendCreate);
        await g.write(99, text("first"));
        await g.close();
        expect(await readFile(s, "fresh.log")).toBe("first");
      });
    });

    it("exists and delete: ENOENT for a missing file; an open handle outlives delete", async () => {
      await run(async (s) => {
        expect(await s.exists("f")).toBe(false);
        await writeFile(s, "f", "keep me");
        expect(await s.exists("f")).toBe(true);
        const open = await s.open("f", OpenOptions.readWrite);
        await s.delete("f");
        expect(await s.exists("f")).toBe(false);
        expect(await codeOf(s.delete("f"))).toBe("ENOENT");
        expect(await codeOf(s.open("f", OpenOptions.readOnly))).toBe("ENOENT");
        // The unlinked file still works through the handle that holds it.
        await open.write(7, text("!"));
        expect(str(await open.read(0, 8))).toBe("keep me!");
        await open.close();
        expect(await s.list()).toEqual([]);
      });
    });

    it("rename moves a file, replaces the target, and open handles follow the file", async () => {
      await run(async (s) => {
        await writeFile(s, "a", "alpha");
        await writeFile(s, "b", "beta");
        const handle = await s.open("a", OpenOptions.readWrite);
        await s.rename("a", "b");
        expect(await s.exists("a")).toBe(false);
        expect(await readFile(s, "b")).toBe("alpha");
        await handle.write(0, text("ALPHA"));
        await handle.close();
        expect(await readFile(s, "b")).toBe("ALPHA");
        await s.rename("b", "b");
        expect(await readFile(s, "b")).toBe("ALPHA");
        expect(await codeOf(s.rename("missing", "c"))).toBe("ENOENT");
        await s.rename("b", "dir/sub/c");
        expect(await s.list()).toEqual(["dir/sub/c"]);
        expect(await readFile(s, "dir/sub/c")).toBe("ALPHA");
      });
    });

    it("list returns every file path, sorted, filtered by prefix", async () => {
      await run(async (s) => {
        for (const p of ["wal/0002", "wal/0001", "snap", "wal2", "a/b/c/d"]) await writeFile(s, p, p);
        expect(await s.list()).toEqual(["a/b/c/d", "snap", "wal/0001", "wal/0002", "wal2"]);
        expect(await s.list("wal/")).toEqual(["wal/0001", "wal/0002"]);
        expect(await s.list("wal")).toEqual(["wal/0001", "wal/0002", "wal2"]);
        expect(await s.list("a/b")).toEqual(["a/b/c/d"]);
        expect(await s.list("zzz")).toEqual([]);
      });
    });

    it("paths behave like directories: EISDIR on a directory, ENOTDIR below a file", async () => {
      await run(async (s) => {
        await writeFile(s, "dir/file", "x");
        expect(await s.exists("dir")).toBe(false);
        expect(await codeOf(s.open("dir", OpenOptions.readOnly))).toBe("EISDIR");
        expect(await codeOf(s.open("dir", OpenOptions.readWriteCreate))).toBe("EISDIR");
        expect(await codeOf(s.delete("dir"))).toBe("EISDIR");
        expect(await codeOf(s.rename("dir", "other"))).toBe("EISDIR");
        expect(await codeOf(s.open("dir/file/below", OpenOptions.readWriteCreate))).toBe("ENOTDIR");
        expect(await codeOf(s.open("dir/file/below", OpenOptions.readOnly))).toBe("ENOTDIR");
        expect(await codeOf(s.rename("dir/file", "dir/file/below"))).toBe("ENOTDIR");
        expect(await s.exists("dir/file/below")).toBe(false);
        // Once its last file is gone, a directory name is free for a file.
        await s.delete("dir/file");
        await writeFile(s, "dir", "now a file");
        expect(await readFile(s, "dir")).toBe("now a file");
        expect(await s.list()).toEqual(["dir"]);
      });
    });

    it("concurrent writes from two handles to different ranges all land", async () => {
      await run(async (s) => {
        const a = await s.open("shared", OpenOptions.readWriteCreate);
        const b = await s.open("shared", OpenOptions.readWrite);
        const writes: Promise<void>[] = [];
        for (let i = 0; i < 16; i++) writes.push((i % 2 === 0 ? a : b).write(i * 1000, pattern(1000, i)));
        await Promise.all(writes);
        await Promise.all([a.sync(), b.sync()]);
        for (let i = 0; i < 16; i++) expectBytes(await a.read(i * 1000, 1000), pattern(1000, i));
        await Promise.all([a.close(), b.close()]);
      });
    });

    it("a file written in one run is there in the next (the provider keeps its files)", async () => {
      await run((s) => writeFile(s, "persist", "still here"));
      const content = await run((s) => readFile(s, "persist"));
      expect(content).toBe("still here");
    });

    it("many small files: create, list, delete", async () => {
      await run(async (s) => {
        const handles: StorageFile[] = [];
        for (let i = 0; i < 20; i++)
          handles.push(await s.open(`many/${String(i).padStart(2, "0")}`, OpenOptions.createNewWrite));
        for (const [i, h] of handles.entries()) await h.write(0, text(String(i)));
        await Promise.all(handles.map((h) => h.close()));
        expect((await s.list("many/")).length).toBe(20);
        for (const p of await s.list("many/")) await s.delete(p);
        expect(await s.list()).toEqual([]);
      });
    });
  });
}
