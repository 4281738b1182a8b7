/**
 * `StorageProvider` on `node:fs/promises`, rooted at one directory. Paths are validated by
 * `checkStoragePath` (relative, no "." or ".." segments), so they cannot leave the root lexically;
 * symbolic links placed inside the root by someone else are followed like any file.
 *
 * To keep the contract of `../storage.ts` on a real file system:
 * - metadata is made durable when the call resolves: the parent directory is fsynced after a file
 *   is created, renamed or deleted, and the file itself after `truncate` and `setLength`;
 * - directories are an implementation detail: parents are created on demand and removed once
 *   empty, so a path that was a directory never blocks a later file of the same name, as in the
 *   simulator's flat namespace;
 * - every error is an `IoError` with the Node code; access checks (`EBADF`, `EINVAL`) are made
 *   here first so that both providers word them the same.
 */
import { constants as fsConstants } from "node:fs";
import { mkdir, open, readdir, rename, rmdir, stat, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { InvalidConfiguration, IoError } from "../errors.ts";
import {
  checkLength,
  checkOpenOptions,
  checkReadRange,
  checkStoragePath,
  checkWriteArgs,
  type OpenOptions,
  type StorageFile,
  type StorageProvider,
} from "../storage.ts";
import { toIoError } from "./address.ts";
import { gate, type Halt } from "./halt.ts";

export interface ProductionStorageOptions {
  /** The directory holding every file; created (with its parents) on first use. */
  readonly root: string;
  /**
   * The kill switch of the task this provider belongs to (set by `ProductionTask`): operations
   * made after the task was aborted never settle, and a file opened late is closed.
   */
  readonly halt?: Halt;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** An open file on disk. Created by `ProductionStorage.open`. */
export class ProductionStorageFile implements StorageFile {
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly handle: FileHandle,
    readonly path: string,
    private readonly readable: boolean,
    private readonly writable: boolean,
    private readonly appending: boolean,
    private readonly halt: Halt | undefined,
  ) {}

  read(offset: number, length: number): Promise<Uint8Array> {
    return gate(this.halt, async () => {
      const invalid = checkReadRange(offset, length) ?? this.check("read", this.readable);
      if (invalid !== null) throw invalid;
      const buffer = new Uint8Array(length);
      let filled = 0;
      // A regular file returns short reads only at its end; loop anyway, as POSIX allows them.
      while (filled < length) {
        const { bytesRead } = await this.io("read", () =>
          this.handle.read(buffer, filled, length - filled, offset + filled),
        );
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return filled === length ? buffer : buffer.slice(0, filled);
    });
  }

  write(offset: number, bytes: Uint8Array): Promise<void> {
    const invalid = checkWriteArgs(offset, bytes);
    // Copy at the call, as documented: the caller may reuse its buffer before the write lands.
    const copy = invalid === null ? new Uint8Array(bytes) : bytes;
    return gate(this.halt, async () => {
      const refused = invalid ?? this.check("write", this.writable);
      if (refused !== null) throw refused;
      let written = 0;
      while (written < copy.length) {
        // O_APPEND with a null position appends atomically, whatever the platform does with
        // positional writes on append-mode descriptors.
        const position = this.appending ? null : offset + written;
        const { bytesWritten } = await this.io("write", () =>
          this.handle.write(copy, written, copy.length - written, position),
        );
        written += bytesWritten;
      }
    });
  }

  sync(): Promise<void> {
    return gate(this.halt, async () => {
      const refused = this.check("sync", true);
      if (refused !== null) throw refused;
      await this.io("sync", () => this.handle.sync());
    });
  }

  size(): Promise<number> {
    return gate(this.halt, async () => {
      const refused = this.check("size", true);
      if (refused !== null) throw refused;
      return (await this.io("size", () => this.handle.stat())).size;
    });
  }

  setLength(sizeBytes: number): Promise<void> {
    return gate(this.halt, async () => {
      const refused = checkLength(sizeBytes) ?? this.check("setLength", true);
      if (refused !== null) throw refused;
      // Linux answers EINVAL for ftruncate on a descriptor not open for writing; say it first.
      if (!this.writable)
        throw new IoError("EINVAL", `setLength on ${this.path}: the file was not opened with write or append`);
      await this.io("setLength", () => this.handle.truncate(sizeBytes));
      // The contract makes size changes durable at once (the simulator never loses them).
      await this.io("setLength", () => this.handle.sync());
    });
  }

  close(): Promise<void> {
    this.closed = true;
    this.closing ??= this.handle.close().catch(() => {
      // Closing can only fail on a descriptor that is already gone: nothing is left to release.
    });
    return gate(this.halt, () => this.closing!);
  }

  /** `EBADF` when closed or not opened for this access, else null. */
  private check(op: string, allowed: boolean): IoError | null {
    if (this.closed)
      return new IoError("EBADF", `${op} on ${this.path}: the file handle is closed; open the file again`);
    if (!allowed) {
      const needs = op === "read" ? "read" : "write or append";
      return new IoError("EBADF", `${op} on ${this.path}: the file was not opened with ${needs}`);
    }
    return null;
  }

  private async io<T>(op: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw toIoError(error, `${op} on ${this.path}`);
    }
  }
}

/** Files under one root directory. */
export class ProductionStorage implements StorageProvider {
  /** The absolute root directory. */
  readonly root: string;
  private readonly halt: Halt | undefined;
  private rootReady: Promise<void> | undefined;

  constructor(options: ProductionStorageOptions) {
    if (typeof options?.root !== "string" || options.root.length === 0) {
      throw new InvalidConfiguration(
        "ProductionStorage needs { root: <directory> }, the directory that will hold every file",
      );
    }
    this.root = resolve(options.root);
    this.halt = options.halt;
  }

  /** A provider on the same root whose operations stop with `halt` (for a task scope). */
  scoped(halt: Halt): ProductionStorage {
    const scoped = new ProductionStorage({ root: this.root, halt });
    scoped.rootReady = this.rootReady;
    return scoped;
  }

  open(path: string, options: OpenOptions): Promise<ProductionStorageFile> {
    return gate(
      this.halt,
      () => this.openFile(path, options),
      (file) => void file.close(),
    );
  }

  exists(path: string): Promise<boolean> {
    return gate(this.halt, async () => {
      const full = await this.resolvePath(path);
      try {
        return (await stat(full)).isFile();
      } catch (error) {
        const code = codeOf(error);
        if (code === "ENOENT" || code === "ENOTDIR") return false;
        throw toIoError(error, `exists ${path}`);
      }
    });
  }

  delete(path: string): Promise<void> {
    return gate(this.halt, async () => {
      const full = await this.resolvePath(path);
      await this.fs(`delete ${path}`, () => unlink(full));
      await this.syncDirectory(dirname(full));
      await this.pruneEmptyParents(dirname(full));
    });
  }

  rename(from: string, to: string): Promise<void> {
    return gate(this.halt, async () => {
      const source = await this.resolvePath(from);
      const target = await this.resolvePath(to);
      // rename(2) moves directories too; the contract only knows files.
      const info = await this.fs(`rename ${from}`, () => stat(source));
      if (info.isDirectory())
        throw new IoError(
          "EISDIR",
          `rename ${from}: it is a directory (other files live under "${from}/"), not a file`,
        );
      await this.makeParents(target, to);
      await this.fs(`rename ${from} -> ${to}`, () => rename(source, target));
      await this.syncDirectory(dirname(target));
      if (dirname(source) !== dirname(target)) {
        await this.syncDirectory(dirname(source));
        await this.pruneEmptyParents(dirname(source));
      }
    });
  }

  list(prefix = ""): Promise<string[]> {
    return gate(this.halt, async () => {
      if (typeof prefix !== "string")
        throw new IoError("EINVAL", `list(prefix) needs a string prefix, got ${typeof prefix}`);
      await this.ensureRoot();
      const out: string[] = [];
      await this.walk(this.root, "", prefix, out);
      return out.sort();
    });
  }

  private async openFile(path: string, options: OpenOptions): Promise<ProductionStorageFile> {
    const invalidOptions = checkOpenOptions(options);
    if (invalidOptions !== null) throw invalidOptions;
    const full = await this.resolvePath(path);
    const readable = options.read === true;
    const writable = options.write === true || options.append === true;
    let flags = readable && writable ? fsConstants.O_RDWR : writable ? fsConstants.O_WRONLY : fsConstants.O_RDONLY;
    if (options.append === true) flags |= fsConstants.O_APPEND;
    if (options.createNew === true) flags |= fsConstants.O_CREAT | fsConstants.O_EXCL;
    else if (options.create === true) flags |= fsConstants.O_CREAT;
    if (options.truncate === true) flags |= fsConstants.O_TRUNC;
    let created = options.createNew === true;
    if (options.createNew === true || options.create === true) {
      await this.makeParents(full, path);
      if (!created) created = !(await this.fileExists(full));
    }
    const handle = await this.fs(`open ${path}`, () => open(full, flags, 0o666));
    try {
      // open(2) opens directories read-only without complaint; files are all we serve.
      if ((await handle.stat()).isDirectory()) {
        throw new IoError("EISDIR", `open ${path}: it is a directory (other files live under "${path}/"), not a file`);
      }
      if (created) await this.syncDirectory(dirname(full));
      if (options.truncate === true) await this.fs(`open ${path}`, () => handle.sync());
    } catch (error) {
      await handle.close().catch(() => {});
      throw error instanceof IoError ? error : toIoError(error, `open ${path}`);
    }
    return new ProductionStorageFile(handle, path, readable, writable, options.append === true, this.halt);
  }

  private async resolvePath(path: string): Promise<string> {
    const invalid = checkStoragePath(path);
    if (invalid !== null) throw invalid;
    const full = join(this.root, ...path.split("/"));
    // checkStoragePath already rules out "..": this is the belt to those braces.
    if (!full.startsWith(this.root + sep))
      throw new IoError("EINVAL", `storage path ${JSON.stringify(path)} resolves outside the root ${this.root}`);
    await this.ensureRoot();
    return full;
  }

  private ensureRoot(): Promise<void> {
    this.rootReady ??= mkdir(this.root, { recursive: true }).then(
      () => undefined,
      (error: unknown) => {
        this.rootReady = undefined;
        throw toIoError(error, `create storage root ${this.root}`);
      },
    );
    return this.rootReady;
  }

  private async fileExists(full: string): Promise<boolean> {
    try {
      await stat(full);
      return true;
    } catch {
      return false;
    }
  }

  /** Creates the parent directories of `full`; a parent that is a file gives `ENOTDIR`. */
  private async makeParents(full: string, path: string): Promise<void> {
    const parent = dirname(full);
    if (parent === this.root) return;
    try {
      await mkdir(parent, { recursive: true });
    } catch (error) {
      const code = codeOf(error);
      if (code === "EEXIST" || code === "ENOTDIR") {
        throw new IoError("ENOTDIR", `${path}: a parent of this path is a file, not a directory`);
      }
      throw toIoError(error, `create the directories of ${path}`);
    }
  }

  /** Removes `dir` and its parents up to the root while they are empty. */
  private async pruneEmptyParents(dir: string): Promise<void> {
    while (dir !== this.root && dir.startsWith(this.root + sep)) {
      try {
        await rmdir(dir);
      } catch {
        return; // not empty (or already gone): stop here
      }
      dir = dirname(dir);
    }
  }

  private async syncDirectory(dir: string): Promise<void> {
    let handle: FileHandle | undefined;
    try {
      handle = await open(dir, fsConstants.O_RDONLY);
      await handle.sync();
    } catch (error) {
      // Some file systems refuse fsync on directories (EINVAL); there is nothing more to do there.
      if (codeOf(error) !== "EINVAL") throw toIoError(error, `sync directory ${dir}`);
    } finally {
      await handle?.close();
    }
  }

  private async walk(dir: string, relative: string, prefix: string, out: string[]): Promise<void> {
    const entries = await this.fs(`list ${relative || "."}`, () => readdir(dir, { withFileTypes: true }));
    for (const entry of entries) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        // Skip subtrees that cannot hold a match.
        if (prefix.startsWith(`${path}/`) || `${path}/`.startsWith(prefix) || path.startsWith(prefix)) {
          await this.walk(join(dir, entry.name), path, prefix, out);
        }
      } else if (entry.isFile() && path.startsWith(prefix)) {
        out.push(path);
      }
    }
  }

  private async fs<T>(context: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw toIoError(error, context);
    }
  }
}

/** What `productionProviders()` gives as `storage` without a root: every call says how to configure one. */
export class UnconfiguredStorage implements StorageProvider {
  /** The same provider: there is nothing to stop. */
  scoped(_halt: Halt): UnconfiguredStorage {
    return this;
  }
  private fail<T>(call: string): Promise<T> {
    return Promise.reject(
      new InvalidConfiguration(
        `storage.${call}: no storage root is configured; pass { storageRoot: "<directory>" } to productionProviders() or createNodeContext()`,
      ),
    );
  }
  open(): Promise<StorageFile> {
    return this.fail("open");
  }
  exists(): Promise<boolean> {
    return this.fail("exists");
  }
  delete(): Promise<void> {
    return this.fail("delete");
  }
  rename(): Promise<void> {
    return this.fail("rename");
  }
  list(): Promise<string[]> {
    return this.fail("list");
  }
}
