/**
 * The simulated `node:fs` of one world (`builder.nodeFs()`): a file system per IP (the machine's
 * disk, so it survives the process's reboots and goes with a wipe), a file descriptor table per
 * process incarnation (a crash closes them all), and the paths whose reads stay real.
 */
import path from "node:path";
import type { Incarnation } from "../../engine/incarnation.ts";
import { currentVirtualProcess } from "../node-runtime/runtime.ts";
import type { VirtualProcess } from "../node-runtime/virtual-process.ts";
import { ActorScope } from "../scope.ts";
import type { Disk, DiskListener } from "../storage/storage.ts";
import type { World } from "../world.ts";
import { fsError } from "./errors.ts";
import type { OpenFile } from "./open-file.ts";
import { SimFileSystem } from "./tree.ts";

export interface NodeFsOptions {
  /**
   * Absolute paths whose reads go to the real file system (a path there cannot be written: `EROFS`).
   * Any path with a `node_modules` segment and the simulator's own package are always real.
   */
  readonly realReadPaths: readonly string[];
  /** Directories a fresh disk has (the working directory and `/tmp` by default). */
  readonly initialDirectories: readonly string[];
  /** Bytes the files of one machine may take before writes fail with `ENOSPC` (default: no limit). */
  readonly capacityBytes: number;
}

const PACKAGE_ROOT = path.resolve(import.meta.dirname, "../../..");

/** Descriptors of one process incarnation: the lowest free number from 3 up, as POSIX gives. */
export class FdTable {
  private readonly files = new Map<number, OpenFile>();

  add(file: OpenFile): number {
    let fd = 3;
    while (this.files.has(fd)) fd++;
    this.files.set(fd, file);
    return fd;
  }

  get(fd: number, syscall: string): OpenFile {
    const file = this.files.get(fd);
    if (file === undefined) throw fsError("EBADF", syscall);
    return file;
  }

  has(fd: number): boolean {
    return this.files.has(fd);
  }

  close(fd: number, syscall = "close"): void {
    const file = this.get(fd, syscall);
    file.closed = true;
    this.files.delete(fd);
  }
}

export class WorldFs implements DiskListener {
  private readonly machines = new Map<string, SimFileSystem>();
  private readonly fdTables = new WeakMap<Incarnation, FdTable>();
  private readonly realRoots: readonly string[];

  constructor(
    readonly world: World,
    readonly options: NodeFsOptions,
  ) {
    this.realRoots = [PACKAGE_ROOT, ...options.realReadPaths.map((p) => path.resolve(p))];
    world.storage.addDiskListener(this);
  }

  /** The file system of the machine at `ip`, created with its first use. */
  machine(ip: string): SimFileSystem {
    let fs = this.machines.get(ip);
    if (fs === undefined) {
      fs = new SimFileSystem(
        this.world.storage,
        this.world.storage.disk(ip),
        this.options.initialDirectories,
        this.options.capacityBytes,
      );
      this.machines.set(ip, fs);
    }
    return fs;
  }

  fdTable(incarnation: Incarnation): FdTable {
    let table = this.fdTables.get(incarnation);
    if (table === undefined) {
      table = new FdTable();
      this.fdTables.set(incarnation, table);
    }
    return table;
  }

  /** Whether reads of `file` (absolute) go to the real file system. */
  isReal(file: string): boolean {
    const inside = (root: string) => file === root || file.startsWith(root.endsWith("/") ? root : `${root}/`);
    return file.split("/").includes("node_modules") || this.realRoots.some(inside);
  }

  crashed(disk: Disk): void {
    this.machines.get(disk.ip)?.crash();
  }

  wiped(disk: Disk): void {
    this.machines.get(disk.ip)?.wipe();
  }
}

const worlds = new WeakMap<World, WorldFs>();

/** Gives `world` a simulated `node:fs` (called by the seed runner for `builder.nodeFs()`). */
export function enableNodeFs(world: World, options: NodeFsOptions): WorldFs {
  const state = new WorldFs(world, options);
  worlds.set(world, state);
  return state;
}

/** The simulated file system of `world`, or null when it has none. */
export function worldFsOf(world: World): WorldFs | null {
  return worlds.get(world) ?? null;
}

/** What a call of simulated code works on: its process, its machine's file system and its descriptors. */
export interface FsCaller {
  readonly process: VirtualProcess;
  readonly state: WorldFs;
  readonly fs: SimFileSystem;
  readonly fds: FdTable;
  readonly scope: ActorScope;
}

/** The caller when simulated code of a world with `nodeFs()` runs, else null (the real `fs` answers). */
export function currentFsCaller(): FsCaller | null {
  const process = currentVirtualProcess();
  if (process === null || process.owner === null) return null;
  const state = worlds.get(process.world);
  if (state === undefined) return null;
  const incarnation = process.owner as Incarnation;
  const scope = incarnation.nodeHost;
  if (!(scope instanceof ActorScope)) return null;
  return { process, state, fs: state.machine(process.ip), fds: state.fdTable(incarnation), scope };
}
