/**
 * `fs.Stats` and `fs.Dirent` objects for simulated nodes, made from Node's own classes so
 * `isFile()`, `isDirectory()` and `instanceof` behave as on a real disk.
 */
import fs from "node:fs";
import type { FsNode } from "./tree.ts";

const S_IFREG = fs.constants.S_IFREG;
const S_IFDIR = fs.constants.S_IFDIR;
/** libuv's dirent types (`UV_DIRENT_FILE`, `UV_DIRENT_DIR`). */
const UV_DIRENT_FILE = 1;
const UV_DIRENT_DIR = 2;
/** Node does not export `BigIntStats`: its prototype, from a real stat of this module's directory at load. */
const BIGINT_STATS_PROTOTYPE = Object.getPrototypeOf(fs.statSync(import.meta.dirname, { bigint: true })) as object;

/** A `Stats` of `node` (mode 0644 for files, 0755 for directories; owner 0; device 1). */
export function statsOf(node: FsNode, bigint = false): fs.Stats | fs.BigIntStats {
  const size = node.kind === "file" ? node.file.sizeBytes : 4096;
  const fields: Record<string, number> = {
    dev: 1,
    mode: node.kind === "file" ? S_IFREG | 0o644 : S_IFDIR | 0o755,
    nlink: node.kind === "file" ? 1 : 2,
    uid: 0,
    gid: 0,
    rdev: 0,
    blksize: 4096,
    ino: node.ino,
    size,
    blocks: Math.ceil(size / 512),
    atimeMs: node.mtimeMs,
    mtimeMs: node.mtimeMs,
    ctimeMs: node.ctimeMs,
    birthtimeMs: node.birthtimeMs,
  };
  // Own data properties: newer Node majors define the date fields as lazy accessors on the prototype.
  const own = (target: object, key: string, value: unknown) =>
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  const stats = Object.create(bigint ? BIGINT_STATS_PROTOTYPE : fs.Stats.prototype) as object;
  for (const [key, value] of Object.entries(fields)) own(stats, key, bigint ? BigInt(Math.floor(value)) : value);
  for (const key of ["atime", "mtime", "ctime", "birthtime"]) {
    own(stats, key, new Date(fields[`${key}Ms`]!));
    if (bigint) own(stats, `${key}Ns`, BigInt(Math.floor(fields[`${key}Ms`]! * 1e6)));
  }
  return stats as fs.Stats | fs.BigIntStats;
}

type DirentConstructor = new (name: string, type: number, path: string) => fs.Dirent;

/** A `Dirent` for `name` in the directory `parentPath`. */
export function direntOf(name: string, node: FsNode, parentPath: string): fs.Dirent {
  const Dirent = fs.Dirent as unknown as DirentConstructor;
  return new Dirent(name, node.kind === "file" ? UV_DIRENT_FILE : UV_DIRENT_DIR, parentPath);
}
