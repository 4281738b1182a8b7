/**
 * The storage provider: a flat namespace of files addressed by relative paths, with positional
 * reads and writes and an explicit `sync()` for durability. The simulator (`@moonpool/sim`) and
 * the production provider (`ProductionStorage`, on `node:fs/promises`) implement the same
 * contract, checked by one shared test suite.
 *
 * The durability contract:
 * - Data is durable once a `sync()` that started after its `write()` resolved has resolved.
 *   A crash may lose or tear writes that were not synced; synced data survives unless the
 *   simulator recorded a `sim_fault` event that says it was damaged.
 * - Metadata is durable when the call resolves: creating a file (`open` with `create` or
 *   `createNew`), `truncate`, `setLength`, `rename` and `delete`. (The production provider syncs
 *   the file or its directory to honour this.)
 * - Bytes of a file that were never written (a hole left by writing past the end, or the
 *   extension made by `setLength`) have unspecified content: zeros on a real file system,
 *   arbitrary but deterministic bytes in the simulator. Never rely on them.
 *
 * Errors are `IoError` with the Node code: `ENOENT` (no such file), `EEXIST` (`createNew` on an
 * existing file), `EISDIR` (the path names a directory: other files live under `path/`),
 * `ENOTDIR` (a parent of the path is a file), `EBADF` (the handle is closed, or not open for that
 * access), `EINVAL` (bad path, options or arguments), `EIO` (the device failed, e.g. a sync),
 * `EFBIG` (past the simulator's file size limit).
 */
import { IoError } from "./errors.ts";

/** How `StorageProvider.open` opens a file (the flags of POSIX `open`). */
export interface OpenOptions {
  /** Reads allowed. */
  readonly read?: boolean;
  /** Writes allowed. */
  readonly write?: boolean;
  /** Create the file if it does not exist (needs `write` or `append`). */
  readonly create?: boolean;
  /** Create the file; `EEXIST` if it exists (needs `write` or `append`; implies `create`). */
  readonly createNew?: boolean;
  /** Empty the file on open (needs `write`; not with `append`). */
  readonly truncate?: boolean;
  /** Writes allowed, and every write goes to the end of the file (its offset is ignored). */
  readonly append?: boolean;
}

/** The usual option sets, by name. */
export const OpenOptions = Object.freeze({
  /** An existing file, read only. */
  readOnly: Object.freeze({ read: true }) as OpenOptions,
  /** An existing file, read and write. */
  readWrite: Object.freeze({ read: true, write: true }) as OpenOptions,
  /** Read and write, creating the file if needed (contents kept). */
  readWriteCreate: Object.freeze({ read: true, write: true, create: true }) as OpenOptions,
  /** Write, creating the file if needed and emptying it. */
  createWrite: Object.freeze({ write: true, create: true, truncate: true }) as OpenOptions,
  /** Write a file that must not exist yet. */
  createNewWrite: Object.freeze({ write: true, createNew: true }) as OpenOptions,
  /** Append, creating the file if needed. */
  appendCreate: Object.freeze({ append: true, create: true }) as OpenOptions,
});

/** An open file. Offsets and lengths are byte counts (non-negative safe integers). */
export interface StorageFile {
  /** The path this handle was opened with. */
  readonly path: string;
  /**
   * Up to `length` bytes from `offset`: fewer only at the end of the file, none at or past it.
   * `EBADF` unless opened with `read`.
   */
  read(offset: number, length: number): Promise<Uint8Array>;
  /**
   * Writes all of `bytes` at `offset` (at the end of the file in `append` mode), extending the
   * file when needed. The bytes are copied at the call. Not durable until `sync()`.
   * `EBADF` unless opened with `write` or `append`.
   */
  write(offset: number, bytes: Uint8Array): Promise<void>;
  /** Makes every write that resolved before this call durable. `EIO` if the device failed. */
  sync(): Promise<void>;
  /** The current size in bytes (unsynced writes included). */
  size(): Promise<number>;
  /** Truncates or extends the file to `sizeBytes` (durable when it resolves). `EINVAL` unless writable. */
  setLength(sizeBytes: number): Promise<void>;
  /** Closes the handle (no implicit sync); later calls reject with `EBADF`. Closing twice is harmless. */
  close(): Promise<void>;
}

export interface StorageProvider {
  /** Opens (and maybe creates) the file at `path`. */
  open(path: string, options: OpenOptions): Promise<StorageFile>;
  /** Whether a file (not a directory) exists at `path`. */
  exists(path: string): Promise<boolean>;
  /** Removes the file; open handles keep working on the unlinked file (as on POSIX). */
  delete(path: string): Promise<void>;
  /** Moves a file, replacing any file at `to`; open handles follow the file. */
  rename(from: string, to: string): Promise<void>;
  /** Paths of every file whose path starts with `prefix` (default: all), sorted. */
  list(prefix?: string): Promise<string[]>;
}

/** Longest accepted path, in UTF-16 code units. */
export const MAX_STORAGE_PATH_LENGTH = 1024;
/** Longest accepted path segment, in UTF-8 bytes (`NAME_MAX` on Linux). */
export const MAX_STORAGE_NAME_BYTES = 255;
/** Largest `length` of one read or write (Node's limit for one I/O call, 2^31 - 1). */
export const MAX_STORAGE_IO_BYTES = 2 ** 31 - 1;

/** UTF-8 length of `text` without allocating (lone surrogates count as 3 bytes, as U+FFFD). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

const PATH_HINT = 'use a relative path of "/"-separated names such as "wal/segment-0001.log"';

/**
 * Why `path` is not a valid storage path, as an `IoError("EINVAL" | "ENAMETOOLONG")`, or null.
 * Valid: relative, "/"-separated, non-empty names that are neither "." nor "..", no backslash,
 * no NUL. So a path can never leave the provider's root.
 */
export function checkStoragePath(path: unknown): IoError | null {
  if (typeof path !== "string")
    return new IoError("EINVAL", `a storage path must be a string, got ${typeof path}; ${PATH_HINT}`);
  if (path.length === 0) return new IoError("EINVAL", `empty storage path; ${PATH_HINT}`);
  if (path.length > MAX_STORAGE_PATH_LENGTH) {
    return new IoError(
      "ENAMETOOLONG",
      `storage path of ${path.length} characters is longer than ${MAX_STORAGE_PATH_LENGTH}`,
    );
  }
  if (path.includes("\0") || path.includes("\\"))
    return new IoError("EINVAL", `storage path ${JSON.stringify(path)} contains NUL or "\\"; ${PATH_HINT}`);
  if (path.startsWith("/"))
    return new IoError("EINVAL", `storage path ${JSON.stringify(path)} is absolute; ${PATH_HINT}`);
  for (const name of path.split("/")) {
    if (name === "" || name === "." || name === "..") {
      return new IoError(
        "EINVAL",
        `storage path ${JSON.stringify(path)} has an empty, "." or ".." segment; ${PATH_HINT}`,
      );
    }
    if (utf8Length(name) > MAX_STORAGE_NAME_BYTES) {
      return new IoError(
        "ENAMETOOLONG",
        `storage path segment ${JSON.stringify(name.slice(0, 32))}... is longer than ${MAX_STORAGE_NAME_BYTES} UTF-8 bytes`,
      );
    }
  }
  return null;
}

/** Why `options` cannot open a file, as an `IoError("EINVAL")` (e.g. `create` without `write` or `append`), or null. */
export function checkOpenOptions(options: unknown): IoError | null {
  if (typeof options !== "object" || options === null) {
    return new IoError(
      "EINVAL",
      "open(path, options) needs an options object such as { read: true } (see OpenOptions presets)",
    );
  }
  const o = options as OpenOptions;
  const writable = o.write === true || o.append === true;
  if (o.read !== true && !writable)
    return new IoError("EINVAL", "open options allow no access: set read, write or append");
  if ((o.create === true || o.createNew === true || o.truncate === true) && !writable) {
    return new IoError("EINVAL", "open options create, createNew and truncate need write or append");
  }
  if (o.truncate === true && o.append === true)
    return new IoError("EINVAL", "open options truncate and append cannot be combined");
  return null;
}

function isByteCount(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}

/** Why `(offset, length)` is not a valid read range, as an `IoError("EINVAL")`, or null. */
export function checkReadRange(offset: unknown, length: unknown): IoError | null {
  if (!isByteCount(offset))
    return new IoError("EINVAL", `read offset must be a non-negative safe integer, got ${String(offset)}`);
  if (!isByteCount(length) || length > MAX_STORAGE_IO_BYTES) {
    return new IoError(
      "EINVAL",
      `read length must be an integer in 0 ..= ${MAX_STORAGE_IO_BYTES}, got ${String(length)}`,
    );
  }
  return null;
}

/** Why `(offset, bytes)` is not a valid write, as an `IoError("EINVAL")`, or null. */
export function checkWriteArgs(offset: unknown, bytes: unknown): IoError | null {
  if (!isByteCount(offset))
    return new IoError("EINVAL", `write offset must be a non-negative safe integer, got ${String(offset)}`);
  if (!(bytes instanceof Uint8Array))
    return new IoError("EINVAL", "write(offset, bytes) needs a Uint8Array (a Buffer is one)");
  if (bytes.length > MAX_STORAGE_IO_BYTES)
    return new IoError("EINVAL", `one write is limited to ${MAX_STORAGE_IO_BYTES} bytes, got ${bytes.length}`);
  return null;
}

/** Why `sizeBytes` is not a valid `setLength` argument, as an `IoError("EINVAL")`, or null. */
export function checkLength(sizeBytes: unknown): IoError | null {
  return isByteCount(sizeBytes)
    ? null
    : new IoError("EINVAL", `setLength(sizeBytes) needs a non-negative safe integer, got ${String(sizeBytes)}`);
}
