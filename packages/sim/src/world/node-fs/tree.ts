/**
 * The directory tree of one simulated machine's file system: the layer `node:fs` (and any other
 * file-backed code, such as an embedded database's file layer) runs on. Paths are absolute POSIX
 * paths, already resolved; every method completes at once and throws Node's errors (`errors.ts`).
 *
 * File contents are the storage layer's `SimFile`s (sector image, unsynced-write log, crash damage,
 * every storage fault family). Directories add what the storage namespace does not have: their
 * entries are durable only after a directory `fsync`. A directory changed since its last sync keeps
 * the entries it had then (`durable`); at a crash, with the disk's crash damage probability, it goes
 * back to them (the creates, renames and unlinks since are lost), otherwise the changes survive.
 */
import { VIRTUAL_EPOCH_MS } from "../node-runtime/virtual-process.ts";
import { METADATA_LATENCY_US } from "../storage/config.ts";
import { STORAGE_FAULT_KINDS } from "../storage/faults.ts";
import { SimFile } from "../storage/file.ts";
import type { Disk, SimStorage } from "../storage/storage.ts";
import { fsError } from "./errors.ts";

export interface FileNode {
  readonly kind: "file";
  readonly ino: number;
  readonly file: SimFile;
  birthtimeMs: number;
  mtimeMs: number;
  ctimeMs: number;
}

export interface DirNode {
  readonly kind: "dir";
  readonly ino: number;
  entries: Map<string, FsNode>;
  /** The entries as of the last directory sync, while unsynced changes exist; null when clean. */
  durable: Map<string, FsNode> | null;
  birthtimeMs: number;
  mtimeMs: number;
  ctimeMs: number;
}

export type FsNode = FileNode | DirNode;

/** What `open` flags ask for, decoded (`flags.ts`). */
export interface OpenMode {
  readonly read: boolean;
  readonly write: boolean;
  readonly append: boolean;
  readonly create: boolean;
  readonly exclusive: boolean;
  readonly truncate: boolean;
}

/** Latency of a namespace operation (open, stat, rename, ...), the storage provider's. */
export const FS_METADATA_LATENCY_US = METADATA_LATENCY_US;

function splitPath(path: string): string[] {
  return path.split("/").filter((name) => name.length > 0);
}

export function joinPath(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

export class SimFileSystem {
  private root: DirNode;
  private lastIno = 0;
  /** Bytes the files take, counted when a capacity is set (for `ENOSPC`). */
  readonly capacityBytes: number;

  constructor(
    readonly storage: SimStorage,
    readonly disk: Disk,
    /** Directories that exist (durably) on a fresh disk, e.g. the working directory and `/tmp`. */
    private readonly initialDirectories: readonly string[],
    capacityBytes = Number.POSITIVE_INFINITY,
  ) {
    this.capacityBytes = capacityBytes;
    this.root = this.freshTree();
  }

  /** Disk time for timestamps: the true simulated time (the machine's clock chaos is the process's). */
  nowMs(): number {
    return VIRTUAL_EPOCH_MS + this.storage.world.engine.nowUs / 1000;
  }

  // --- lookups ----------------------------------------------------------------------------------

  /** The node at `path`, or null when nothing is there; `ENOTDIR` when a parent is a file. */
  find(path: string, syscall: string, errorPath = path): FsNode | null {
    let node: FsNode = this.root;
    for (const name of splitPath(path)) {
      if (node.kind !== "dir") throw fsError("ENOTDIR", syscall, errorPath);
      const next: FsNode | undefined = node.entries.get(name);
      if (next === undefined) return null;
      node = next;
    }
    return node;
  }

  /** The node at `path`; `ENOENT` when there is none. */
  lookup(path: string, syscall: string, errorPath = path): FsNode {
    const node = this.find(path, syscall, errorPath);
    if (node === null) throw fsError("ENOENT", syscall, errorPath);
    return node;
  }

  /** The directory holding `path` and the last name of it; `ENOENT`/`ENOTDIR` as Node gives them. */
  parent(path: string, syscall: string, errorPath = path): { dir: DirNode; name: string } {
    const names = splitPath(path);
    const name = names.pop();
    if (name === undefined) throw fsError("EPERM", syscall, errorPath); // the root itself
    const dir = this.lookup(`/${names.join("/")}`, syscall, errorPath);
    if (dir.kind !== "dir") throw fsError("ENOTDIR", syscall, errorPath);
    return { dir, name };
  }

  // --- namespace changes --------------------------------------------------------------------------

  /** `mkdir`: returns the first directory created (recursive), or undefined when none was. */
  mkdir(path: string, recursive: boolean): string | undefined {
    if (!recursive) {
      const { dir, name } = this.parent(path, "mkdir");
      if (dir.entries.has(name)) throw fsError("EEXIST", "mkdir", path);
      this.link(dir, name, this.newDir());
      return undefined;
    }
    let node: DirNode = this.root;
    let at = "/";
    let first: string | undefined;
    for (const name of splitPath(path)) {
      at = joinPath(at, name);
      const next = node.entries.get(name);
      if (next === undefined) {
        const created = this.newDir();
        this.link(node, name, created);
        first ??= at;
        node = created;
      } else if (next.kind === "dir") node = next;
      else throw fsError(at === path ? "EEXIST" : "ENOTDIR", "mkdir", path);
    }
    return first;
  }

  /** The entries of a directory, sorted by name (a fixed order: real file systems give their own). */
  list(path: string, syscall = "scandir"): [string, FsNode][] {
    const node = this.lookup(path, syscall);
    if (node.kind !== "dir") throw fsError("ENOTDIR", syscall, path);
    return [...node.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  unlink(path: string): void {
    const { dir, name } = this.parent(path, "unlink");
    const node = dir.entries.get(name);
    if (node === undefined) throw fsError("ENOENT", "unlink", path);
    if (node.kind === "dir") throw fsError("EISDIR", "unlink", path);
    this.unlinkEntry(dir, name);
  }

  rmdir(path: string): void {
    const { dir, name } = this.parent(path, "rmdir");
    const node = dir.entries.get(name);
    if (node === undefined) throw fsError("ENOENT", "rmdir", path);
    if (node.kind !== "dir") throw fsError("ENOTDIR", "rmdir", path);
    if (node.entries.size > 0) throw fsError("ENOTEMPTY", "rmdir", path);
    this.unlinkEntry(dir, name);
  }

  /** Removes `path` and, when it is a directory, everything under it (`rm -r`). */
  removeTree(path: string): void {
    const { dir, name } = this.parent(path, "rm");
    if (!dir.entries.has(name)) throw fsError("ENOENT", "rm", path);
    this.unlinkEntry(dir, name);
  }

  /** POSIX `rename`: replaces a file, or an empty directory with a directory. */
  rename(from: string, to: string): void {
    const source = this.parent(from, "rename", from);
    const node = source.dir.entries.get(source.name);
    if (node === undefined) throw fsError("ENOENT", "rename", from, to);
    const target = this.parentForRename(from, to);
    const existing = target.dir.entries.get(target.name);
    if (existing === node) return;
    if (node.kind === "dir" && (to === from || to.startsWith(`${from}/`))) throw fsError("EINVAL", "rename", from, to);
    if (existing !== undefined) {
      if (existing.kind === "dir" && node.kind !== "dir") throw fsError("EISDIR", "rename", from, to);
      if (existing.kind !== "dir" && node.kind === "dir") throw fsError("ENOTDIR", "rename", from, to);
      if (existing.kind === "dir" && existing.entries.size > 0) throw fsError("ENOTEMPTY", "rename", from, to);
    }
    this.unlinkEntry(source.dir, source.name);
    this.link(target.dir, target.name, node);
    if (node.kind === "file") node.file.path = to;
  }

  /**
   * Opens (and maybe creates or truncates) the node at `path`. A directory opens only for reading
   * (what a directory `fsync` needs), as on Linux.
   */
  open(path: string, mode: OpenMode): FsNode {
    const { dir, name } = this.parent(path, "open");
    let node = dir.entries.get(name);
    if (node !== undefined && mode.create && mode.exclusive) throw fsError("EEXIST", "open", path);
    if (node === undefined) {
      if (!mode.create) throw fsError("ENOENT", "open", path);
      node = this.newFile(path);
      this.link(dir, name, node);
      return node;
    }
    if (node.kind === "dir") {
      if (mode.write || mode.append) throw fsError("EISDIR", "open", path);
      return node;
    }
    if (mode.truncate && (mode.write || mode.append)) this.truncateFile(node, 0);
    return node;
  }

  /** A copy of a file's bytes as a new file at `to` (what `copyFile` does; the copy is unsynced). */
  copy(from: string, to: string, exclusive: boolean): FileNode {
    const node = this.lookup(from, "copyfile", from);
    if (node.kind === "dir") throw fsError("EISDIR", "copyfile", from, to);
    const target = this.open(to, { read: false, write: true, append: false, create: true, exclusive, truncate: true });
    if (target.kind === "dir") throw fsError("EISDIR", "copyfile", from, to);
    if (target === node) return target;
    const size = node.file.sizeBytes;
    if (size > 0) target.file.write(0, node.file.image.read(0, size), this.disk.config.crashFaultProbability > 0);
    this.touch(target);
    return target;
  }

  /** Sets a file's length (`truncate`, `ftruncate`); the new size is metadata and survives a crash. */
  truncateFile(node: FileNode, sizeBytes: number): void {
    if (sizeBytes === 0 && node.file.sizeBytes > 0) node.file.truncate(this.storage.world.engine.streams.sim.u32());
    else if (sizeBytes !== node.file.sizeBytes) node.file.resize(sizeBytes);
    this.touch(node);
  }

  /** A directory `fsync`: its entries as they are now are durable. */
  syncDirectory(dir: DirNode): void {
    dir.durable = null;
  }

  touch(node: FsNode): void {
    node.mtimeMs = node.ctimeMs = this.nowMs();
  }

  /** Bytes every file of the tree takes (for the capacity check). */
  usedBytes(): number {
    let total = 0;
    const seen = new Set<FsNode>();
    const visit = (dir: DirNode): void => {
      for (const node of dir.entries.values()) {
        if (seen.has(node)) continue;
        seen.add(node);
        if (node.kind === "dir") visit(node);
        else total += node.file.sizeBytes;
      }
    };
    visit(this.root);
    return total;
  }

  // --- crash and wipe -----------------------------------------------------------------------------

  /**
   * The machine lost power (after the storage layer's own files took their damage): each directory
   * with unsynced changes loses them with the crash damage probability, then every file still
   * reachable takes the crash damage of its unsynced writes. Directories and files in path order,
   * so the draws do not depend on the order they were made in.
   */
  crash(): void {
    const p = this.disk.config.crashFaultProbability;
    const sim = this.storage.world.engine.streams.sim;
    const files: [string, FileNode][] = [];
    const seen = new Set<FsNode>();
    const visit = (dir: DirNode, path: string): void => {
      if (dir.durable !== null) {
        if (p > 0 && sim.ratio() < p) {
          dir.entries = dir.durable;
          this.storage.world.recordFault(STORAGE_FAULT_KINDS.lostDirectoryUpdate, {
            ip: this.disk.ip,
            path,
            entries: dir.entries.size,
          });
        }
        dir.durable = null;
      }
      for (const [name, node] of [...dir.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (seen.has(node)) continue;
        seen.add(node);
        const at = joinPath(path, name);
        if (node.kind === "dir") visit(node, at);
        else {
          node.file.path = at;
          files.push([at, node]);
        }
      }
    };
    visit(this.root, "/");
    for (const [path, node] of files) this.storage.crashFile(this.disk, path, node.file);
  }

  /** The machine was replaced: a fresh disk with only the initial directories. */
  wipe(): void {
    this.root = this.freshTree();
  }

  // --- helpers ----------------------------------------------------------------------------------

  private parentForRename(from: string, to: string): { dir: DirNode; name: string } {
    const names = splitPath(to);
    const name = names.pop();
    if (name === undefined) throw fsError("EBUSY", "rename", from, to);
    const dir = this.find(`/${names.join("/")}`, "rename", from);
    if (dir === null) throw fsError("ENOENT", "rename", from, to);
    if (dir.kind !== "dir") throw fsError("ENOTDIR", "rename", from, to);
    return { dir, name };
  }

  /** Remembers the synced entries before the first change since the last directory sync. */
  private changing(dir: DirNode): void {
    if (dir.durable === null) dir.durable = new Map(dir.entries);
    this.touch(dir);
  }

  private link(dir: DirNode, name: string, node: FsNode): void {
    this.changing(dir);
    dir.entries.set(name, node);
  }

  private unlinkEntry(dir: DirNode, name: string): void {
    this.changing(dir);
    dir.entries.delete(name);
  }

  private newDir(): DirNode {
    const now = this.nowMs();
    return {
      kind: "dir",
      ino: ++this.lastIno,
      entries: new Map(),
      durable: null,
      birthtimeMs: now,
      mtimeMs: now,
      ctimeMs: now,
    };
  }

  private newFile(path: string): FileNode {
    const now = this.nowMs();
    const file = new SimFile(this.storage.newFileId(), path, this.storage.world.engine.streams.sim.u32());
    return { kind: "file", ino: ++this.lastIno, file, birthtimeMs: now, mtimeMs: now, ctimeMs: now };
  }

  private freshTree(): DirNode {
    const root = this.newDir();
    for (const path of this.initialDirectories) {
      let node = root;
      for (const name of splitPath(path)) {
        let next = node.entries.get(name);
        if (next === undefined || next.kind !== "dir") {
          next = this.newDir();
          node.entries.set(name, next);
        }
        node = next;
      }
    }
    return root;
  }
}
