/**
 * Node's file system errors, as `node:fs` raises them: an `Error` with `errno` (negative, as libuv
 * gives), `code`, `syscall`, `path` (and `dest` for two-path calls), and the message
 * `ENOENT: no such file or directory, open '/x'`. Code that branches on `err.code` sees the same
 * values on the simulated disk as on a real one.
 */
import { constants } from "node:os";
import { IoError } from "@moonpool/core";

/** libuv's `uv_strerror` text for the codes the simulated file system raises. */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  EEXIST: "file already exists",
  EISDIR: "illegal operation on a directory",
  ENOTDIR: "not a directory",
  ENOTEMPTY: "directory not empty",
  EBADF: "bad file descriptor",
  EIO: "i/o error",
  ENOSPC: "no space left on device",
  EINVAL: "invalid argument",
  EFBIG: "file too large",
  EROFS: "read-only file system",
  ENAMETOOLONG: "name too long",
  EPERM: "operation not permitted",
  EBUSY: "resource busy or locked",
};

export type FsErrorCode = keyof typeof DESCRIPTIONS;

/** A Node file system error (what `uvException` builds in Node). */
export interface NodeFsError extends Error {
  errno: number;
  code: string;
  syscall: string;
  path?: string;
  dest?: string;
}

export function fsError(code: string, syscall: string, path?: string, dest?: string): NodeFsError {
  const description = DESCRIPTIONS[code] ?? code.toLowerCase();
  let message = `${code}: ${description}, ${syscall}`;
  if (path !== undefined) message += ` '${path}'`;
  if (dest !== undefined) message += ` -> '${dest}'`;
  const error = new Error(message) as NodeFsError;
  const errno = (constants.errno as Record<string, number>)[code];
  error.errno = errno === undefined ? -1 : -errno;
  error.code = code;
  error.syscall = syscall;
  if (path !== undefined) error.path = path;
  if (dest !== undefined) error.dest = dest;
  return error;
}

/** True for an error made by `fsError` (or Node's own): it has a string `code` and a `syscall`. */
export function isNodeFsError(error: unknown): error is NodeFsError {
  return error instanceof Error && typeof (error as NodeFsError).code === "string" && "syscall" in error;
}

/** The storage layer's `IoError` (a failed sync, a stale handle) as Node raises the same code. */
export function fromIoError(error: unknown, syscall: string, path?: string): unknown {
  return error instanceof IoError ? fsError(error.code, syscall, path) : error;
}

/** Node's `ERR_INVALID_ARG_TYPE` / `ERR_INVALID_ARG_VALUE` (a `TypeError` with a code). */
export function argError(code: "ERR_INVALID_ARG_TYPE" | "ERR_INVALID_ARG_VALUE" | "ERR_OUT_OF_RANGE", message: string) {
  const error = (code === "ERR_OUT_OF_RANGE" ? new RangeError(message) : new TypeError(message)) as Error & {
    code: string;
  };
  error.code = code;
  return error;
}
