/**
 * A PGlite filesystem whose data directory is a folder of the simulated disk of the process's IP.
 *
 * Postgres in WASM does synchronous file I/O, so every call applies at once through the disk's
 * own fault code (`SimFileHandle.completeRead/Write/Sync`): a write lands in the page cache and
 * stays exposed to a crash until an fsync covers it, a failed fsync answers EIO (Postgres then
 * PANICs, as it does on Linux), and reads and writes meet the disk's corruption families. The
 * simulated time those operations take is summed (`takeIoDelayUs`) and paid by the server before
 * it answers, so an fsync delays the commit's reply as a real disk would.
 *
 * PGlite's `BaseFilesystem` maps Emscripten's calls onto the methods below but has no fsync; the
 * mount's shared `stream_ops` get one after mounting. Directories are marker files
 * (`DIR_MARKER`): the disk's namespace is flat and Postgres keeps empty directories.
 */
import type { PGlite } from "@electric-sql/pglite";
import { BaseFilesystem, type FsStats } from "@electric-sql/pglite/basefs";
import type { SimFileHandle } from "../storage/handle.ts";
import type { SimStorageProvider } from "../storage/provider.ts";

/** A zero-length file standing for a directory of the data directory on the flat simulated disk. */
export const DIR_MARKER = ".moonpool-dir";

/** Emscripten's errno values (its FS.ErrnoError codes). */
const ERRNO = { EIO: 29, EEXIST: 20, EISDIR: 31, ENOENT: 44, ENOTDIR: 54, ENOTEMPTY: 55, EBADF: 8 } as const;

const DIR_MODE = 0o40700;
const FILE_MODE = 0o100600;

/** What BaseFilesystem turns into an Emscripten `ErrnoError` (it reads `code`). */
class FsError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface OpenFile {
  readonly path: string;
  readonly handle: SimFileHandle;
}

/** Emscripten's module as far as the fsync hook needs it. */
interface MountedModule {
  FS: { lookupPath(path: string): { node: { stream_ops: Record<string, unknown> } } };
}

export class SimDiskFilesystem extends BaseFilesystem {
  private readonly fds = new Map<number, OpenFile>();
  private nextFd = 1;
  private ioDelayUs = 0;
  /** Simulated I/O counts of this Postgres life, for traces and tests. */
  readonly counts = { reads: 0, writes: 0, syncs: 0, failedSyncs: 0 };

  constructor(
    private readonly storage: SimStorageProvider,
    /** The data directory's folder on the disk (no leading slash). */
    readonly root: string,
  ) {
    super(undefined);
  }

  override async init(
    pg: PGlite,
    emscriptenOptions: Parameters<BaseFilesystem["init"]>[1],
  ): ReturnType<BaseFilesystem["init"]> {
    const result = await super.init(pg, emscriptenOptions);
    const pgdata = (pg.constructor as typeof import("@electric-sql/pglite").PGlite).paths.PGDATA;
    // PGlite calls Emscripten's factory next, which in Node first does `await import("node:module")`:
    // a module load that settles from the real event loop (through the loader hooks' thread), so
    // the rest of the start would land at a step that depends on wall time. Seen as a non-Node
    // host (Electron's renderer test) it skips that; everything it then needs is passed in.
    hideNodeFromEmscripten();
    const preRun: unknown[] = [restoreNodeForEmscripten, ...((result.emscriptenOpts.preRun as unknown[]) ?? [])];
    preRun.push((mod: MountedModule) => {
      // The mount's root shares its stream_ops with every node of the mount.
      const fsync = (stream: { nfd?: number }) => this.fsync(stream.nfd);
      mod.FS.lookupPath(pgdata).node.stream_ops.fsync = fsync;
    });
    return { emscriptenOpts: { ...result.emscriptenOpts, preRun } as typeof result.emscriptenOpts };
  }

  /** Simulated time the I/O since the last call took; the caller sleeps it before answering. */
  takeIoDelayUs(): number {
    const us = this.ioDelayUs;
    this.ioDelayUs = 0;
    return us;
  }

  // --- paths and directories -------------------------------------------------------------------

  private diskPath(path: string): string {
    const rel = path.replace(/^\/+/, "").replace(/\/+$/, "");
    return rel === "" ? this.root : `${this.root}/${rel}`;
  }

  private get files() {
    return this.storage.syncDisk.files;
  }

  private isDir(diskPath: string): boolean {
    return diskPath === this.root || this.files.has(`${diskPath}/${DIR_MARKER}`);
  }

  private stats(diskPath: string): FsStats {
    const blksize = 4096;
    if (this.isDir(diskPath)) return statsOf(DIR_MODE, 4096, blksize);
    const file = this.files.get(diskPath);
    if (file === undefined) throw new FsError(ERRNO.ENOENT, `${diskPath}: no such file`);
    return statsOf(FILE_MODE, file.sizeBytes, blksize);
  }

  private openFile(fd: number): OpenFile {
    const open = this.fds.get(fd);
    if (open === undefined) throw new FsError(ERRNO.EBADF, `fd ${fd} is not open`);
    return open;
  }

  // --- BaseFilesystem ---------------------------------------------------------------------------

  chmod(path: string): void {
    this.stats(this.diskPath(path));
  }

  close(fd: number): void {
    this.fds.delete(fd);
  }

  fstat(fd: number): FsStats {
    return this.stats(this.openFile(fd).path);
  }

  lstat(path: string): FsStats {
    return this.stats(this.diskPath(path));
  }

  mkdir(path: string, options?: { recursive?: boolean }): void {
    const target = this.diskPath(path);
    if (this.isDir(target)) {
      if (options?.recursive === true) return;
      throw new FsError(ERRNO.EEXIST, `${target} exists`);
    }
    if (this.files.has(target)) throw new FsError(ERRNO.EEXIST, `${target} is a file`);
    this.storage.openSync(`${target}/${DIR_MARKER}`, { write: true, create: true });
  }

  open(path: string): number {
    const target = this.diskPath(path);
    if (!this.files.has(target))
      throw new FsError(this.isDir(target) ? ERRNO.EISDIR : ERRNO.ENOENT, `${target}: no such file`);
    const handle = this.storage.openSync(target, { read: true, write: true });
    const fd = this.nextFd++;
    this.fds.set(fd, { path: target, handle });
    return fd;
  }

  readdir(path: string): string[] {
    const dir = this.diskPath(path);
    if (!this.isDir(dir)) throw new FsError(ERRNO.ENOTDIR, `${dir} is not a directory`);
    const prefix = `${dir}/`;
    const names = new Set<string>();
    for (const p of this.files.keys()) {
      if (!p.startsWith(prefix)) continue;
      const name = p.slice(prefix.length).split("/")[0]!;
      if (name !== DIR_MARKER) names.add(name);
    }
    return [...names].sort();
  }

  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number {
    const { handle } = this.openFile(fd);
    this.counts.reads++;
    this.ioDelayUs += handle.ioDelayUs("read", length, this.ioDelayUs);
    const bytes = handle.completeRead(position, length);
    buffer.set(bytes, offset);
    return bytes.length;
  }

  rename(oldPath: string, newPath: string): void {
    const from = this.diskPath(oldPath);
    const to = this.diskPath(newPath);
    const file = this.files.get(from);
    if (file === undefined) throw new FsError(ERRNO.ENOENT, `rename ${from}: no such file`);
    if (this.isDir(to)) throw new FsError(ERRNO.EISDIR, `rename to ${to}: a directory`);
    // Metadata is durable at once on the simulated disk, as the storage provider's rename.
    this.files.delete(from);
    file.path = to;
    this.files.set(to, file);
  }

  rmdir(path: string): void {
    const dir = this.diskPath(path);
    if (!this.isDir(dir)) throw new FsError(ERRNO.ENOTDIR, `${dir} is not a directory`);
    if (this.readdir(path).length > 0) throw new FsError(ERRNO.ENOTEMPTY, `${dir} is not empty`);
    this.files.delete(`${dir}/${DIR_MARKER}`);
  }

  truncate(path: string, len: number): void {
    const target = this.diskPath(path);
    if (!this.files.has(target)) throw new FsError(ERRNO.ENOENT, `${target}: no such file`);
    this.storage.openSync(target, { write: true }).resizeSync(len);
  }

  unlink(path: string): void {
    const target = this.diskPath(path);
    if (!this.files.delete(target)) throw new FsError(ERRNO.ENOENT, `unlink ${target}: no such file`);
  }

  utimes(): void {}

  writeFile(path: string, data: string | Uint8Array): void {
    const target = this.diskPath(path);
    if (this.isDir(target)) throw new FsError(ERRNO.EISDIR, `${target} is a directory`);
    const handle = this.storage.openSync(target, { write: true, create: true, truncate: true });
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    if (bytes.length > 0) {
      this.counts.writes++;
      this.ioDelayUs += handle.ioDelayUs("write", bytes.length, this.ioDelayUs);
      handle.completeWrite(0, new Uint8Array(bytes));
    }
  }

  write(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number {
    const { handle } = this.openFile(fd);
    // BaseFilesystem hands the WASM heap's ArrayBuffer here, with `offset` into it.
    const heap = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer as ArrayBufferLike);
    const bytes = heap.slice(offset, offset + length);
    this.counts.writes++;
    this.ioDelayUs += handle.ioDelayUs("write", length, this.ioDelayUs);
    const error = handle.completeWrite(position, bytes);
    if (error !== null) throw new FsError(ERRNO.EIO, error.message);
    return length;
  }

  /** fsync(2) of an open file: EIO when the disk fails it (nothing it covered is durable then). */
  private fsync(fd: number | undefined): number {
    if (fd === undefined) return 0; // a directory: its entries are durable at once on this disk
    const open = this.fds.get(fd);
    if (open === undefined) return ERRNO.EBADF;
    // An fsync of a file with nothing unsynced returns at once, without touching the device.
    if (!open.handle.hasUnsyncedChanges) return 0;
    this.counts.syncs++;
    this.ioDelayUs += open.handle.ioDelayUs("sync", 0, this.ioDelayUs);
    const error = open.handle.completeSync(open.handle.changeSeq);
    if (error === null) return 0;
    this.counts.failedSyncs++;
    return ERRNO.EIO;
  }
}

let hiddenType: { value: unknown } | null = null;

/** Makes `process.type` "renderer" until `restoreNodeForEmscripten`: Emscripten's test for Node. */
function hideNodeFromEmscripten(): void {
  if (hiddenType !== null) return;
  const proc = process as unknown as { type?: unknown };
  hiddenType = { value: proc.type };
  proc.type = "renderer";
}

/** Puts `process.type` back (idempotent); called as soon as the factory has looked. */
export function restoreNodeForEmscripten(): void {
  if (hiddenType === null) return;
  const proc = process as unknown as { type?: unknown };
  if (hiddenType.value === undefined) delete proc.type;
  else proc.type = hiddenType.value;
  hiddenType = null;
}

function statsOf(mode: number, size: number, blksize: number): FsStats {
  return {
    dev: 0,
    ino: 0,
    mode,
    nlink: 1,
    uid: 0,
    gid: 0,
    rdev: 0,
    size,
    blksize,
    blocks: Math.ceil(size / 512),
    atime: 0,
    mtime: 0,
    ctime: 0,
  };
}
