/**
 * `ctx.storage` of one scope: the namespace operations on the disk of the scope's IP. Each takes
 * `METADATA_LATENCY_US` and applies when it completes, so two racing creates are decided by the
 * order their events fire. Metadata changes are durable at once (see `@moonpool/core` storage).
 *
 * The namespace is flat (a map from path to file), but behaves like directories to match a real
 * file system: a path with files under `path/` is a directory (`EISDIR`), and a path below a
 * file is `ENOTDIR`.
 */
import {
  checkOpenOptions,
  checkStoragePath,
  IoError,
  type OpenOptions,
  type StorageFile,
  type StorageProvider,
} from "@moonpool/core";
import { Incarnation, type PendingOp } from "../../engine/incarnation.ts";
import type { ActorScope } from "../scope.ts";
import { METADATA_LATENCY_US, type StorageConfig } from "./config.ts";
import { SimFile } from "./file.ts";
import { SimFileHandle } from "./handle.ts";
import { failed, issue, type StorageRequest } from "./ops.ts";
import type { Disk, SimStorage } from "./storage.ts";

/** A namespace operation: `apply` returns the result or throws the `IoError`. */
class MetadataRequest<T> implements StorageRequest<T> {
  constructor(
    readonly storage: SimStorage,
    readonly disk: Disk,
    readonly epoch: number,
    readonly op: PendingOp<T>,
    private readonly apply: () => T,
  ) {}
  complete(): void {
    let value: T;
    try {
      value = this.apply();
    } catch (error) {
      Incarnation.reject(this.op, error);
      return;
    }
    Incarnation.resolve(this.op, value);
  }
}

/** `ENOTDIR` if a parent of `path` is a file, else null. */
function parentIsFile(disk: Disk, path: string, op: string): IoError | null {
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) {
    if (disk.files.has(path.slice(0, i)))
      return new IoError("ENOTDIR", `${op} ${path}: ${path.slice(0, i)} is a file, not a directory`);
  }
  return null;
}

/** Whether `path` is a directory: some file lives under `path/`. */
function isDirectory(disk: Disk, path: string): boolean {
  const prefix = `${path}/`;
  for (const p of disk.files.keys()) if (p.startsWith(prefix)) return true;
  return false;
}

function directoryError(op: string, path: string): IoError {
  return new IoError("EISDIR", `${op} ${path}: it is a directory (other files live under "${path}/"), not a file`);
}

export class SimStorageProvider implements StorageProvider {
  constructor(
    private readonly storage: SimStorage,
    private readonly scope: ActorScope,
  ) {}

  private get disk(): Disk {
    return this.storage.disk(this.scope.ip);
  }

  open(path: string, options: OpenOptions): Promise<StorageFile> {
    const invalid = checkStoragePath(path) ?? checkOpenOptions(options);
    if (invalid !== null) return failed(this.scope, invalid);
    const flags = { ...options }; // the caller may change its object before the open lands
    return this.metadata("storage open of", path, () => this.applyOpen(path, flags));
  }

  exists(path: string): Promise<boolean> {
    const invalid = checkStoragePath(path);
    if (invalid !== null) return failed(this.scope, invalid);
    return this.metadata("storage exists of", path, () => this.disk.files.has(path));
  }

  delete(path: string): Promise<void> {
    const invalid = checkStoragePath(path);
    if (invalid !== null) return failed(this.scope, invalid);
    return this.metadata("storage delete of", path, () => {
      const disk = this.disk;
      const notDir = parentIsFile(disk, path, "delete");
      if (notDir !== null) throw notDir;
      if (!disk.files.delete(path)) {
        throw isDirectory(disk, path)
          ? directoryError("delete", path)
          : new IoError("ENOENT", `delete ${path}: no such file`);
      }
    });
  }

  rename(from: string, to: string): Promise<void> {
    const invalid = checkStoragePath(from) ?? checkStoragePath(to);
    if (invalid !== null) return failed(this.scope, invalid);
    return this.metadata("storage rename of", from, () => {
      const disk = this.disk;
      const file = disk.files.get(from);
      if (file === undefined) {
        throw (
          parentIsFile(disk, from, "rename") ??
          (isDirectory(disk, from)
            ? directoryError("rename", from)
            : new IoError("ENOENT", `rename ${from}: no such file`))
        );
      }
      const notDir = parentIsFile(disk, to, "rename");
      if (notDir !== null) throw notDir;
      if (from === to) return;
      if (isDirectory(disk, to)) throw directoryError("rename", to);
      disk.files.delete(from);
      file.path = to;
      disk.files.set(to, file); // replaces whatever was at `to`
    });
  }

  list(prefix = ""): Promise<string[]> {
    if (typeof prefix !== "string")
      return failed(this.scope, new IoError("EINVAL", `list(prefix) needs a string prefix, got ${typeof prefix}`));
    return this.metadata("storage list of", prefix, () => {
      const out: string[] = [];
      for (const path of this.disk.files.keys()) if (path.startsWith(prefix)) out.push(path);
      return out.sort();
    });
  }

  /** The disk of this scope's IP, for in-process filesystems that work on it synchronously. */
  get syncDisk(): Disk {
    return this.disk;
  }

  /**
   * Gives this scope's IP its own storage configuration, `limit` applied to the world-wide one
   * (the seed's storage chaos): a database process turns off the families it is not built to survive.
   */
  limitDiskFaults(limit: (config: StorageConfig) => StorageConfig): void {
    this.storage.setIpConfig(this.scope.ip, limit(this.storage.config));
  }

  /**
   * `open` applied at once, for a filesystem that a synchronous program (Postgres in WASM) calls:
   * the handle's `complete*` methods then read, write and sync at once, with the disk's faults.
   */
  openSync(path: string, options: OpenOptions): SimFileHandle {
    const invalid = checkStoragePath(path) ?? checkOpenOptions(options);
    if (invalid !== null) throw invalid;
    return this.applyOpen(path, { ...options });
  }

  private applyOpen(path: string, options: OpenOptions): SimFileHandle {
    const disk = this.disk;
    const notDir = parentIsFile(disk, path, "open");
    if (notDir !== null) throw notDir;
    const sim = this.storage.world.engine.streams.sim;
    let file = disk.files.get(path);
    if (file === undefined && isDirectory(disk, path)) {
      // O_CREAT | O_EXCL on a directory reports EEXIST, as Linux does.
      throw options.createNew === true
        ? new IoError("EEXIST", `open ${path}: a directory exists there`)
        : directoryError("open", path);
    }
    if (file !== undefined && options.createNew === true)
      throw new IoError("EEXIST", `open ${path}: the file already exists (createNew)`);
    if (file === undefined) {
      if (options.create !== true && options.createNew !== true)
        throw new IoError("ENOENT", `open ${path}: no such file; pass create: true to create it`);
      file = new SimFile(this.storage.newFileId(), path, sim.u32());
      disk.files.set(path, file);
    } else if (options.truncate === true) {
      file.truncate(sim.u32());
    }
    const writable = options.write === true || options.append === true;
    return new SimFileHandle(
      this.storage,
      disk,
      file,
      this.scope,
      path,
      options.read === true,
      writable,
      options.append === true,
    );
  }

  private metadata<T>(what: string, detail: string, apply: () => T): Promise<T> {
    const disk = this.disk;
    return issue(
      this.storage,
      this.scope,
      what,
      detail,
      METADATA_LATENCY_US,
      (op) => new MetadataRequest<T>(this.storage, disk, disk.epoch, op, apply),
    );
  }
}
