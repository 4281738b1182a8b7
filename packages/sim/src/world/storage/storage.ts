/**
 * The simulated storage of one world: one disk per IP. A disk holds the files of
 * every process that ran on that IP, so files survive the process's reboots; `crash(ip)` applies
 * the crash faults to what was not synced and closes every handle, `wipe(ip)` deletes everything.
 *
 * Configuration: one world-wide `StorageConfig` plus per-IP overrides, effective for operations
 * issued from then on. `enterRecovery()` (the chaos cutoff) turns every fault family off for good;
 * latencies and episodes already running are kept.
 */
import type { World } from "../world.ts";
import type { ActorScope } from "../scope.ts";
import { DEFAULT_STORAGE_CONFIG, validateStorageConfig, withoutStorageFaults, type StorageConfig } from "./config.ts";
import { STORAGE_FAULT_KINDS, decideCrashFates } from "./faults.ts";
import type { SimFile } from "./file.ts";
import { DiskEpisodes } from "./latency.ts";
import { SimStorageProvider } from "./provider.ts";

/** The storage of one IP. */
export class Disk {
  /** Files by path (the namespace); unlinked files live on in the handles that hold them. */
  readonly files = new Map<string, SimFile>();
  readonly episodes = new DiskEpisodes();
  /**
   * Bumped by every crash and wipe: handles and operations of an older epoch are dead (handles
   * answer EBADF, operations still in flight never land).
   */
  epoch = 0;

  constructor(
    readonly ip: string,
    /** The effective configuration (overrides and recovery mode applied). */
    public config: StorageConfig,
  ) {}
}

/** Another file layer on the same disks (the simulated `node:fs`): told of every crash and wipe of an IP. */
export interface DiskListener {
  /** After the disk's own files took their crash damage (the epoch is already bumped). */
  crashed(disk: Disk): void;
  wiped(disk: Disk): void;
}

export class SimStorage {
  private readonly listeners: DiskListener[] = [];
  private baseConfig: StorageConfig = DEFAULT_STORAGE_CONFIG;
  private readonly ipConfigs = new Map<string, StorageConfig>();
  private readonly disks = new Map<string, Disk>();
  private recovery = false;
  private lastFileId = 0;

  constructor(readonly world: World) {
    world.onRecoveryMode(() => this.enterRecovery());
  }

  /** The world-wide configuration (before per-IP overrides and recovery mode). */
  get config(): StorageConfig {
    return this.baseConfig;
  }

  get inRecovery(): boolean {
    return this.recovery;
  }

  /** Replaces the world-wide configuration. Throws `InvalidConfiguration` if it cannot work. */
  setConfig(config: StorageConfig): void {
    validateStorageConfig(config);
    this.baseConfig = config;
    for (const disk of this.disks.values()) disk.config = this.effectiveConfig(disk.ip);
  }

  /** Gives `ip` its own configuration, or back the world-wide one with `null`. */
  setIpConfig(ip: string, config: StorageConfig | null): void {
    if (config === null) this.ipConfigs.delete(ip);
    else {
      validateStorageConfig(config);
      this.ipConfigs.set(ip, config);
    }
    const disk = this.disks.get(ip);
    if (disk !== undefined) disk.config = this.effectiveConfig(ip);
  }

  /** What operations on `ip`'s disk use now. */
  configFor(ip: string): StorageConfig {
    return this.disks.get(ip)?.config ?? this.effectiveConfig(ip);
  }

  /**
   * The chaos cutoff: no configuration-driven storage fault from now on (on every disk, present
   * and future). Damage already done stays; stall and throttle episodes already running end on
   * their own schedule. Idempotent; called by `World.enterRecoveryMode()`.
   */
  enterRecovery(): void {
    if (this.recovery) return;
    this.recovery = true;
    for (const disk of this.disks.values()) disk.config = this.effectiveConfig(disk.ip);
  }

  /** `ctx.storage` of `scope`: the files of `scope.ip`. */
  providerFor(scope: ActorScope): SimStorageProvider {
    return new SimStorageProvider(this, scope);
  }

  /** The disk of `ip`, created empty on first use. */
  disk(ip: string): Disk {
    let disk = this.disks.get(ip);
    if (disk === undefined) {
      disk = new Disk(ip, this.effectiveConfig(ip));
      this.disks.set(ip, disk);
    }
    return disk;
  }

  /** A new file id, unique within this world (ids are per world so that seeds replay exactly). */
  newFileId(): number {
    return ++this.lastFileId;
  }

  /** Adds a file layer that keeps files of its own on these disks (called in the order added). */
  addDiskListener(listener: DiskListener): void {
    this.listeners.push(listener);
  }

  /** Paths of `ip`'s files, sorted (for checks and reports). */
  paths(ip: string): string[] {
    const disk = this.disks.get(ip);
    return disk === undefined ? [] : [...disk.files.keys()].sort();
  }

  /**
   * The machine at `ip` lost power. Call it when its process crashes (after `World.crash`): each
   * unsynced write survives, is lost, or is torn, as `crashFaultProbability` and
   * `crashLostWriteRatio` decide (only writes that landed while crash faults were on are exposed); every handle closes; operations in flight never land. Records a
   * `storage_crash` event, and one `storage_lost_write` / `storage_torn_write` per damaged write.
   */
  crash(ip: string): void {
    const disk = this.disk(ip);
    disk.epoch++;
    let unsyncedWrites = 0;
    let lostWrites = 0;
    let tornWrites = 0;
    // Files in path order, so the draws do not depend on the order files were created in.
    const paths = [...disk.files.keys()].sort();
    for (const path of paths) {
      const damage = this.crashFile(disk, path, disk.files.get(path)!);
      unsyncedWrites += damage.unsyncedWrites;
      lostWrites += damage.lostWrites;
      tornWrites += damage.tornWrites;
    }
    this.world.recordFault(STORAGE_FAULT_KINDS.crash, {
      ip,
      files: paths.length,
      unsyncedWrites,
      lostWrites,
      tornWrites,
    });
    for (const listener of this.listeners) listener.crashed(disk);
  }

  /**
   * The crash damage of one file of `disk` (at `path`): its unsynced writes survive, are lost or are
   * torn, with one `storage_lost_write` / `storage_torn_write` event per damaged write.
   */
  crashFile(
    disk: Disk,
    path: string,
    file: SimFile,
  ): { unsyncedWrites: number; lostWrites: number; tornWrites: number } {
    const sim = this.world.engine.streams.sim;
    const counts = { unsyncedWrites: file.unsyncedWriteCount, lostWrites: 0, tornWrites: 0 };
    const fates = decideCrashFates(disk.config, file.unsyncedWrites().length, sim);
    for (const damage of file.crash(fates, (first, end) => sim.rangeInt(first, end))) {
      const kind = damage.fate === "lost" ? STORAGE_FAULT_KINDS.lostWrite : STORAGE_FAULT_KINDS.tornWrite;
      if (damage.fate === "lost") counts.lostWrites++;
      else counts.tornWrites++;
      this.world.recordFault(kind, {
        ip: disk.ip,
        path,
        fileId: file.id,
        offsetBytes: damage.offsetBytes,
        lengthBytes: damage.lengthBytes,
      });
    }
    return counts;
  }

  /** Deletes every file of `ip` (a replaced machine): handles close, operations in flight never land. */
  wipe(ip: string): void {
    const disk = this.disk(ip);
    disk.epoch++;
    const files = disk.files.size;
    disk.files.clear();
    this.world.recordFault(STORAGE_FAULT_KINDS.wipe, { ip, files });
    for (const listener of this.listeners) listener.wiped(disk);
  }

  private effectiveConfig(ip: string): StorageConfig {
    const config = this.ipConfigs.get(ip) ?? this.baseConfig;
    return this.recovery ? withoutStorageFaults(config) : config;
  }
}
