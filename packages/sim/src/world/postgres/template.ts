/**
 * The template database: Postgres's data directory after `initdb` and the user's migrations, built
 * once and copied onto the simulated disk at a database process's first boot in a seed.
 *
 * Building it runs PGlite twice (initdb, then the migrations), 5 to 12 s of CPU on this machine, so
 * it is also kept in a cache file keyed by the PGlite version, the initdb arguments and the
 * migrations: every later realm (a fresh worker per seed) reads the file instead, and every seed
 * starts from the same bytes. It must be prepared outside any seed (at the simulation file's top
 * level): it reads and writes real files and compiles WebAssembly.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { loadPgliteAssets, type PgliteAssets } from "./assets.ts";

/** Arguments given to initdb: 1 MB WAL segments instead of 16 keep every seed's disk small. */
export const TEMPLATE_INITDB_ARGS: readonly string[] = ["--wal-segsize=1"];

export interface PostgresTemplateOptions {
  /** SQL run in order after initdb (each may hold several statements). */
  readonly migrations?: readonly string[];
  /** Folder of the cache file; null builds every time. Default: `node_modules/.cache/moonpool-postgres` of the working directory. */
  readonly cacheDir?: string | null;
}

export interface PostgresTemplate {
  /** Files of the data directory, by path relative to it. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** Directories of the data directory, relative to it (the empty ones too). */
  readonly dirs: readonly string[];
  /** The cache key (PGlite version, initdb arguments, migrations). */
  readonly key: string;
  readonly assets: PgliteAssets;
  /** Whether the template came from the cache file. */
  readonly fromCache: boolean;
  /** Real time to prepare it (read or built), for measurements. */
  readonly prepareMs: number;
  readonly sizeBytes: number;
}

interface EmscriptenFs {
  readdir(path: string): string[];
  stat(path: string): { mode: number };
  isDir(mode: number): boolean;
  readFile(path: string): Uint8Array;
}

function walk(fs: EmscriptenFs, base: string, rel: string, files: Map<string, Uint8Array>, dirs: string[]): void {
  for (const name of fs.readdir(rel === "" ? base : `${base}/${rel}`)) {
    if (name === "." || name === "..") continue;
    const child = rel === "" ? name : `${rel}/${name}`;
    const full = `${base}/${child}`;
    if (fs.isDir(fs.stat(full).mode)) {
      dirs.push(child);
      walk(fs, base, child, files, dirs);
    } else files.set(child, new Uint8Array(fs.readFile(full)));
  }
}

/** Cache file layout: JSON header length (u32), JSON `{ dirs, files: [path, length][] }`, the file bytes in order. */
function encode(files: ReadonlyMap<string, Uint8Array>, dirs: readonly string[]): Buffer {
  const header = Buffer.from(JSON.stringify({ dirs, files: [...files].map(([p, b]) => [p, b.length]) }));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  return Buffer.concat([length, header, ...files.values()]);
}

function decode(bytes: Buffer): { files: Map<string, Uint8Array>; dirs: string[] } {
  const headerLength = bytes.readUInt32LE(0);
  const header = JSON.parse(bytes.subarray(4, 4 + headerLength).toString()) as {
    dirs: string[];
    files: [string, number][];
  };
  const files = new Map<string, Uint8Array>();
  let at = 4 + headerLength;
  for (const [path, length] of header.files) {
    files.set(path, new Uint8Array(bytes.subarray(at, at + length)));
    at += length;
  }
  return { files, dirs: header.dirs };
}

async function build(
  assets: PgliteAssets,
  migrations: readonly string[],
): Promise<{ files: Map<string, Uint8Array>; dirs: string[] }> {
  const db = await PGlite.create({ ...assets.options(), initDbStartParams: [...TEMPLATE_INITDB_ARGS] });
  try {
    for (const sql of migrations) await db.exec(sql);
  } catch (error) {
    await db.close();
    throw error;
  }
  // A clean shutdown (a checkpoint, pg_control says "shut down"): a seed's first start neither
  // replays WAL nor fsyncs the whole data directory, as it would after a crash.
  const fs = db.Module.FS as unknown as EmscriptenFs;
  await db.close();
  const files = new Map<string, Uint8Array>();
  const dirs: string[] = [];
  walk(fs, PGlite.paths.PGDATA, "", files, dirs);
  return { files, dirs };
}

/** Prepares the template (from the cache file when there is one). Call it outside any seed. */
export async function preparePostgresTemplate(options: PostgresTemplateOptions = {}): Promise<PostgresTemplate> {
  const started = performance.now();
  const assets = loadPgliteAssets();
  const migrations = options.migrations ?? [];
  const key = createHash("sha256")
    .update(JSON.stringify({ version: assets.version, initdb: TEMPLATE_INITDB_ARGS, migrations }))
    .digest("hex")
    .slice(0, 16);
  const cacheDir =
    options.cacheDir === undefined
      ? join(process.cwd(), "node_modules", ".cache", "moonpool-postgres")
      : options.cacheDir;
  const cacheFile = cacheDir === null ? null : join(cacheDir, `template-${key}.bin`);
  let fromCache = false;
  let content: { files: Map<string, Uint8Array>; dirs: string[] };
  if (cacheFile !== null && existsSync(cacheFile)) {
    content = decode(readFileSync(cacheFile));
    fromCache = true;
  } else {
    content = await build(assets, migrations);
    if (cacheFile !== null && cacheDir !== null) {
      mkdirSync(cacheDir, { recursive: true });
      // Written whole then renamed: a realm reading it never sees half a file.
      const partial = `${cacheFile}.${process.pid}.${Math.floor(performance.now())}.partial`;
      writeFileSync(partial, encode(content.files, content.dirs));
      renameSync(partial, cacheFile);
    }
  }
  let sizeBytes = 0;
  for (const bytes of content.files.values()) sizeBytes += bytes.length;
  return {
    ...content,
    key,
    assets,
    fromCache,
    prepareMs: performance.now() - started,
    sizeBytes,
  };
}
