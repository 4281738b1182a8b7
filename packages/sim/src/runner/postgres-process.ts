/**
 * A simulated Postgres server: PGlite (Postgres 18 in WASM) with its data directory on the
 * simulated disk of its IP, serving the wire protocol on a port over the simulated network.
 *
 * At its first boot in a seed the disk is empty and the template (initdb and the migrations,
 * prepared once outside the seed) is copied onto it as durable files. Every boot then starts
 * Postgres on what the disk holds, so after a crash of the machine Postgres recovers from its WAL
 * what its fsyncs made durable, and loses what they had not. fsync is on (PGlite turns it off by
 * default) and WAL is flushed with fsync(2), which the disk model sees. When Postgres dies under a
 * query (a PANIC on a failed fsync), the process closes every connection and starts Postgres
 * again on the same disk, as a postmaster does.
 */
import { PGlite } from "@electric-sql/pglite";
import type { StorageConfig } from "../world/storage/config.ts";
import { SimStorageProvider } from "../world/storage/provider.ts";
import { DIR_MARKER, restoreNodeForEmscripten, SimDiskFilesystem } from "../world/postgres/sim-disk-fs.ts";
import type { PostgresTemplate } from "../world/postgres/template.ts";
import { WireServer } from "../world/postgres/wire-server.ts";
import type { Process, SimContext } from "./user-interfaces.ts";

export const DEFAULT_POSTGRES_PORT = 5432;
/** Consecutive failed starts after which the process gives up (and fails, as a unit would). */
export const MAX_FAILED_STARTS = 5;
/** Wait before starting Postgres again after a failed start (systemd's RestartSec). */
export const RESTART_DELAY_MS = 500;

/**
 * Which storage fault families reach the database's disk. `"survivable"`: crash damage to unsynced
 * writes, failed fsyncs, stalls and throttling, which Postgres is built to survive; corruption,
 * phantom and misdirected writes and reads are turned off on its IP, since they make a disk lie
 * about what it holds (with them on, even a correct service can lose committed rows). `"all"`:
 * whatever the seed's storage chaos draws.
 */
export type PostgresStorageFaults = "survivable" | "all";

export interface PostgresProcessOptions {
  /** Process (and group) name. Default "postgres". */
  readonly name?: string;
  /** Port it listens on. Default 5432. */
  readonly port?: number;
  /** Folder of the data directory on the simulated disk. Default "pgdata". */
  readonly dataDir?: string;
  /** Default "survivable". */
  readonly storageFaults?: PostgresStorageFaults;
  /** More `-c name=value` settings for the server. */
  readonly settings?: Readonly<Record<string, string>>;
}

/** PGlite's single-user start, without `-F` (fsync off), WAL flushed with fsync(2). */
function startParams(settings: Readonly<Record<string, string>>): string[] {
  const params = PGlite.defaultStartParams.filter((p) => p !== "-F");
  const all: Record<string, string> = { wal_sync_method: "fsync", fsync: "on", ...settings };
  for (const [name, value] of Object.entries(all)) params.push("-c", `${name}=${value}`);
  return params;
}

/** The disk's configuration with only the families Postgres survives left on. */
export function survivableStorageConfig(config: StorageConfig): StorageConfig {
  return {
    ...config,
    readFaultProbability: 0,
    writeFaultProbability: 0,
    phantomWriteProbability: 0,
    misdirectedWriteProbability: 0,
    misdirectedReadProbability: 0,
  };
}

export class PostgresProcess implements Process {
  readonly name: string;
  private readonly port: number;
  private readonly dataDir: string;
  private readonly storageFaults: PostgresStorageFaults;
  private readonly params: string[];
  /** Postgres lives of this process instance (a restart after a PANIC starts another). */
  lives = 0;

  constructor(
    private readonly template: PostgresTemplate,
    options: PostgresProcessOptions = {},
  ) {
    this.name = options.name ?? "postgres";
    this.port = options.port ?? DEFAULT_POSTGRES_PORT;
    this.dataDir = options.dataDir ?? "pgdata";
    this.storageFaults = options.storageFaults ?? "survivable";
    this.params = startParams(options.settings ?? {});
  }

  async run(ctx: SimContext): Promise<void> {
    const storage = ctx.storage;
    if (!(storage instanceof SimStorageProvider))
      throw new TypeError("PostgresProcess runs only inside a simulation (its ctx.storage is the simulated disk)");
    if (this.storageFaults === "survivable") storage.limitDiskFaults(survivableStorageConfig);
    const restored = this.restoreTemplate(storage);
    ctx.trace.info("postgres_boot", { dataDir: this.dataDir, fromTemplate: restored });
    const stopped = new Promise<void>((resolve) => {
      if (ctx.shutdown.aborted) resolve();
      ctx.shutdown.addEventListener("abort", () => resolve(), { once: true });
    });
    let failedStarts = 0;
    while (!ctx.shutdown.aborted) {
      let died: unknown;
      try {
        died = await this.live(ctx, storage, stopped);
      } catch (error) {
        // It could not start (an fsync failed during recovery, or the data directory is damaged):
        // a service manager starts it again a little later, and gives up after a few tries.
        failedStarts++;
        ctx.trace.warn("postgres_start_failed", { attempt: failedStarts, reason: String(error).slice(0, 200) });
        if (failedStarts >= MAX_FAILED_STARTS)
          throw new Error(
            `Postgres did not start on its data directory ${failedStarts} times in a row: ${String(error)}`,
          );
        await ctx.time.sleep(RESTART_DELAY_MS);
        continue;
      }
      failedStarts = 0;
      if (died === null) return;
      ctx.trace.warn("postgres_restart", { reason: String(died).slice(0, 200) });
    }
  }

  /** One life of Postgres: resolves null at shutdown, or the error it died of. */
  private async live(ctx: SimContext, storage: SimStorageProvider, stopped: Promise<void>): Promise<unknown> {
    this.lives++;
    const fs = new SimDiskFilesystem(storage, this.dataDir);
    const db = new PGlite({ ...this.template.assets.options(), fs, startParams: this.params });
    try {
      await db.waitReady;
    } finally {
      restoreNodeForEmscripten();
    }
    await payIo(ctx, fs);
    let fatal: (error: unknown) => void = () => {};
    const died = new Promise<unknown>((resolve) => {
      fatal = resolve;
    });
    const server = new WireServer(
      {
        exec: async (message) => {
          const answer = await db.execProtocolRaw(message, { syncToFs: false });
          await payIo(ctx, fs);
          return answer;
        },
      },
      (error) => fatal(error),
    );
    await server.listen(this.port);
    ctx.trace.info("postgres_ready", { port: this.port, life: this.lives, ...fs.counts });
    const outcome = await Promise.race([stopped.then(() => null), died]);
    server.stop();
    return outcome;
  }

  /** Copies the template onto an empty disk as durable files; false when a data directory is there. */
  private restoreTemplate(storage: SimStorageProvider): boolean {
    const files = storage.syncDisk.files;
    if (files.has(`${this.dataDir}/PG_VERSION`)) return false;
    const marker = (dir: string) => `${dir === "" ? this.dataDir : `${this.dataDir}/${dir}`}/${DIR_MARKER}`;
    storage.openSync(marker(""), { write: true, create: true });
    for (const dir of this.template.dirs) storage.openSync(marker(dir), { write: true, create: true });
    for (const [path, bytes] of this.template.files) {
      const diskPath = `${this.dataDir}/${path}`;
      storage.openSync(diskPath, { write: true, create: true, truncate: true });
      const file = files.get(diskPath)!;
      file.write(0, bytes, false);
      file.syncThrough(file.changeSeq);
    }
    return true;
  }
}

/** Sleeps the simulated time the disk I/O since the last call took. */
async function payIo(ctx: SimContext, fs: SimDiskFilesystem): Promise<void> {
  const us = fs.takeIoDelayUs();
  if (us > 0) await ctx.time.sleep(us / 1000);
}
