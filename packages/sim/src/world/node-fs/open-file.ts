/**
 * An open file of the simulated file system (what a file descriptor names): a node of the tree,
 * the access the open asked for and the current position. Reads, writes and syncs apply at once
 * through the storage layer's completions (`SimFileHandle.complete*`), where every storage fault
 * family strikes; the asynchronous forms call the same methods when their latency has passed.
 */
import type { IoError } from "@moonpool/core";
import type { ActorScope } from "../scope.ts";
import { decideSyncFailure, STORAGE_FAULT_KINDS } from "../storage/faults.ts";
import { SimFileHandle } from "../storage/handle.ts";
import { fsError } from "./errors.ts";
import type { FsNode, OpenMode, SimFileSystem } from "./tree.ts";

export class OpenFile {
  /** Where the next read or write without a position goes. */
  position = 0;
  closed = false;
  private readonly handle: SimFileHandle | null;
  private readonly epoch: number;

  constructor(
    readonly fs: SimFileSystem,
    readonly node: FsNode,
    readonly path: string,
    readonly mode: OpenMode,
    scope: ActorScope,
  ) {
    this.epoch = fs.disk.epoch;
    this.handle =
      node.kind === "file"
        ? new SimFileHandle(
            fs.storage,
            fs.disk,
            node.file,
            scope,
            path,
            mode.read,
            mode.write || mode.append,
            mode.append,
          )
        : null;
  }

  get writable(): boolean {
    return this.mode.write || this.mode.append;
  }

  /** `EBADF` when closed or the disk crashed since; `EISDIR` for data access to a directory. */
  check(syscall: string, access: "read" | "write" | "any"): void {
    if (this.closed || this.epoch !== this.fs.disk.epoch) throw fsError("EBADF", syscall);
    if (access === "any") return;
    if (this.node.kind === "dir") throw fsError("EISDIR", syscall);
    if (access === "read" ? !this.mode.read : !this.writable) throw fsError("EBADF", syscall);
  }

  sizeBytes(): number {
    return this.node.kind === "file" ? this.node.file.sizeBytes : 0;
  }

  /** Reads up to `length` bytes at `position` (null: the current position, which then advances). */
  read(target: Uint8Array, offset: number, length: number, position: number | null, syscall = "read"): number {
    this.check(syscall, "read");
    const at = position ?? this.position;
    const bytes = this.handle!.completeRead(at, length);
    target.set(bytes, offset);
    if (position === null) this.position = at + bytes.length;
    return bytes.length;
  }

  /** Writes `bytes` at `position` (null: the current position; appends go to the end whatever it is). */
  write(bytes: Uint8Array, position: number | null, syscall = "write"): number {
    this.check(syscall, "write");
    if (bytes.length === 0) return 0;
    const at = this.mode.append ? this.sizeBytes() : (position ?? this.position);
    const fs = this.fs;
    if (Number.isFinite(fs.capacityBytes)) {
      const growth = Math.max(0, at + bytes.length - this.sizeBytes());
      if (fs.usedBytes() + growth > fs.capacityBytes) throw fsError("ENOSPC", syscall);
    }
    const error = this.handle!.completeWrite(at, bytes);
    if (error !== null) throw fsError(error.code, syscall);
    if (this.node.kind === "file") fs.touch(this.node);
    if (position === null || this.mode.append) this.position = at + bytes.length;
    return bytes.length;
  }

  /** What a sync issued now covers (the file's newest change). */
  syncPoint(): number {
    return this.node.kind === "file" ? this.node.file.changeSeq : 0;
  }

  /** Completes a sync issued at `throughSeq`; `EIO` when the disk's sync failure family strikes. */
  sync(throughSeq: number, syscall = "fsync"): void {
    this.check(syscall, "any");
    if (this.node.kind === "dir") {
      // A directory sync fails like a file's (the sync failure family), and then syncs nothing.
      const world = this.fs.storage.world;
      if (
        decideSyncFailure(this.fs.disk.config, world.engine.streams.sim) &&
        !world.skipFault(STORAGE_FAULT_KINDS.syncFault)
      ) {
        world.recordFault(STORAGE_FAULT_KINDS.syncFault, { ip: this.fs.disk.ip, path: this.path, fileId: 0 });
        throw fsError("EIO", syscall);
      }
      this.fs.syncDirectory(this.node);
      return;
    }
    const error: IoError | null = this.handle!.completeSync(throughSeq);
    if (error !== null) throw fsError(error.code, syscall);
  }

  truncate(sizeBytes: number, syscall = "ftruncate"): void {
    this.check(syscall, "write");
    if (this.node.kind === "file") this.fs.truncateFile(this.node, sizeBytes);
  }
}
