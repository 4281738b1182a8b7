/**
 * The file layer beneath the `node:fs` facade (`SimFileSystem`, `OpenFile`), driven directly as
 * another file-backed layer (a WASM database's file system, say) would: namespace calls, data
 * through the storage layer, a crash of the machine, and a wipe.
 */
import { describe, expect, it } from "vitest";
import { enableNodeFs, OpenFile, type DirNode, type OpenMode } from "../../src/world/node-fs/index.ts";
import { DEFAULT_STORAGE_CONFIG } from "../../src/world/storage/config.ts";
import { boot, bytesOf, faults, hashedWorld, NODE_IP } from "../storage-helpers.ts";

const READ_WRITE_CREATE: OpenMode = {
  read: true,
  write: true,
  append: false,
  create: true,
  exclusive: false,
  truncate: false,
};
const LOSE_ALL = { ...DEFAULT_STORAGE_CONFIG, crashFaultProbability: 1, crashLostWriteRatio: 1 };

function machine(seed: number) {
  const world = hashedWorld(seed, LOSE_ALL);
  const { scope } = boot(world);
  const state = enableNodeFs(world, {
    realReadPaths: [],
    initialDirectories: ["/pgdata"],
    capacityBytes: Number.POSITIVE_INFINITY,
  });
  const fs = state.machine(NODE_IP);
  const write = (path: string, text: string, sync: boolean) => {
    const file = new OpenFile(fs, fs.open(path, READ_WRITE_CREATE), path, READ_WRITE_CREATE, scope);
    file.write(bytesOf(text), 0);
    if (sync) file.sync(file.syncPoint());
    return file;
  };
  const read = (path: string) => {
    const node = fs.find(path, "open");
    if (node === null || node.kind !== "file") return null;
    return new TextDecoder().decode(node.file.image.read(0, node.file.sizeBytes));
  };
  return { world, fs, write, read };
}

describe("SimFileSystem, the internal API", () => {
  it("keeps synced data under a synced directory entry through a crash and loses the rest", () => {
    const { world, fs, write, read } = machine(1);
    fs.mkdir("/pgdata/base", false);
    write("/pgdata/PG_VERSION", "17", true);
    fs.syncDirectory(fs.lookup("/pgdata", "fsync") as DirNode);
    write("/pgdata/base/1", "page", true); // data synced, its entry in base never
    write("/pgdata/unsynced", "lost", false);
    world.storage.crash(NODE_IP);
    expect(read("/pgdata/PG_VERSION")).toBe("17");
    expect(fs.find("/pgdata/unsynced", "open")).toBeNull();
    expect(fs.list("/pgdata").map(([name]) => name)).toEqual(["PG_VERSION", "base"]);
    // base's own entry for "1" was never synced: gone, though its bytes were.
    expect(fs.list("/pgdata/base")).toEqual([]);
    expect(faults(world, "storage_lost_dir_update").map((e) => e.str("path"))).toEqual(["/pgdata", "/pgdata/base"]);
  });

  it("a crash closes what was open (EBADF), and a wipe leaves only the initial directories", () => {
    const { world, fs, write } = machine(2);
    const open = write("/pgdata/wal", "record", true);
    world.storage.crash(NODE_IP);
    expect(() => open.write(bytesOf("more"), null)).toThrow(
      expect.objectContaining({ code: "EBADF", syscall: "write" }),
    );
    write("/pgdata/after", "x", true);
    world.storage.wipe(NODE_IP);
    expect(fs.list("/")).toHaveLength(1);
    expect(fs.list("/pgdata")).toEqual([]);
  });
});
