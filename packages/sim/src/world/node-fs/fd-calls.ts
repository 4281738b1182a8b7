/**
 * The descriptor-based `node:fs` calls (read, write, fsync, fdatasync, ftruncate, fstat, close) on
 * the calling process's descriptor table, prepared like the path calls (`schedule.ts`).
 */
import { bufferView, checkFd, dataBytes, positionOf } from "./args.ts";
import { argError } from "./errors.ts";
import type { OpenFile } from "./open-file.ts";
import { prepared, type Prepared } from "./schedule.ts";
import type { FsCaller } from "./state.ts";
import { statsOf } from "./stats.ts";

export type FdCall = (caller: FsCaller, args: unknown[]) => Prepared;

/** Everything from the position (or from 0 for a whole-file read) to the end, in one read. */
export function readAllFrom(file: OpenFile, fromStart = false): Uint8Array {
  const at = fromStart ? 0 : file.position;
  const length = Math.max(0, file.sizeBytes() - at);
  const out = new Uint8Array(length);
  const n = length === 0 ? 0 : file.read(out, 0, length, fromStart ? 0 : null);
  return n === length ? out : out.subarray(0, n);
}

interface ReadArgs {
  readonly buffer: Uint8Array;
  readonly original: unknown;
  readonly offset: number;
  readonly length: number;
  readonly position: number | null;
}

/** `read(fd, buffer, offset, length, position)`, `read(fd, buffer, options)` and `read(fd, options)`. */
export function readArgs(args: readonly unknown[]): ReadArgs {
  let [buffer, offset, length, position] = args as [unknown, unknown, unknown, unknown];
  if (!ArrayBuffer.isView(buffer) && typeof buffer === "object" && buffer !== null) {
    const o = buffer as { buffer?: unknown; offset?: number; length?: number; position?: unknown };
    buffer = o.buffer ?? Buffer.alloc(16_384);
    ({ offset, length, position } = o);
  } else if (typeof offset === "object" && offset !== null) {
    const o = offset as { offset?: number; length?: number; position?: unknown };
    ({ offset, length, position } = o);
  }
  const view = bufferView(buffer);
  const at = typeof offset === "number" ? offset : 0;
  const count = typeof length === "number" ? length : view.length - at;
  if (at < 0 || count < 0 || at + count > view.length)
    throw argError(
      "ERR_OUT_OF_RANGE",
      `The value of "length" is out of range. It must be <= ${view.length - at}. Received ${count}`,
    );
  return { buffer: view, original: buffer, offset: at, length: count, position: positionOf(position) };
}

interface WriteArgs {
  readonly bytes: Uint8Array;
  readonly original: unknown;
  readonly position: number | null;
}

/** `write(fd, buffer[, offset[, length[, position]]])`, `write(fd, buffer, options)`, `write(fd, string[, position[, encoding]])`. */
export function writeArgs(args: readonly unknown[]): WriteArgs {
  const [data, a, b, c] = args;
  if (typeof data === "string") {
    return {
      bytes: dataBytes(data, typeof b === "string" ? (b as BufferEncoding) : "utf8"),
      original: data,
      position: positionOf(a),
    };
  }
  const view = bufferView(data);
  let offset = a;
  let length = b;
  let position = c;
  if (typeof a === "object" && a !== null) ({ offset, length, position } = a as Record<string, unknown>);
  const at = typeof offset === "number" ? offset : 0;
  const count = typeof length === "number" ? length : view.length - at;
  if (at < 0 || count < 0 || at + count > view.length)
    throw argError(
      "ERR_OUT_OF_RANGE",
      `The value of "length" is out of range. It must be <= ${view.length - at}. Received ${count}`,
    );
  return { bytes: view.slice(at, at + count), original: data, position: positionOf(position) };
}

const read: FdCall = (caller, [fd, ...rest]) => {
  const n = checkFd(fd);
  const r = readArgs(rest);
  return prepared(
    "read",
    r.length,
    () => caller.fds.get(n, "read").read(r.buffer, r.offset, r.length, r.position),
    (bytesRead) => [bytesRead, r.original],
  );
};

const write: FdCall = (caller, [fd, ...rest]) => {
  const n = checkFd(fd);
  const w = writeArgs(rest);
  return prepared(
    "write",
    w.bytes.length,
    () => caller.fds.get(n, "write").write(w.bytes, w.position),
    (written) => [written, w.original],
  );
};

function syncCall(syscall: "fsync" | "fdatasync"): FdCall {
  return (caller, [fd]) => {
    const n = checkFd(fd);
    // What the sync covers is fixed when it is issued: writes that land while it runs are not covered.
    const file = caller.fds.has(n) ? caller.fds.get(n, syscall) : null;
    const through = file?.syncPoint() ?? 0;
    return prepared("sync", 0, () => caller.fds.get(n, syscall).sync(through, syscall));
  };
}

/** Descriptor calls by their Node name. */
export const FD_CALLS: Readonly<Record<string, FdCall>> = {
  close: (caller, [fd]) => {
    const n = checkFd(fd);
    return prepared("metadata", 0, () => caller.fds.close(n));
  },
  read,
  write,
  fsync: syncCall("fsync"),
  fdatasync: syncCall("fdatasync"),
  ftruncate: (caller, [fd, length]) => {
    const n = checkFd(fd);
    return prepared("write", 0, () =>
      caller.fds.get(n, "ftruncate").truncate(typeof length === "number" ? Math.max(0, length) : 0),
    );
  },
  fchmod: (caller, [fd]) => {
    const n = checkFd(fd);
    return prepared("metadata", 0, () => caller.fds.get(n, "fchmod").check("fchmod", "any"));
  },
  fchown: (caller, [fd]) => {
    const n = checkFd(fd);
    return prepared("metadata", 0, () => caller.fds.get(n, "fchown").check("fchown", "any"));
  },
  futimes: (caller, [fd, , mtime]) => {
    const n = checkFd(fd);
    return prepared("metadata", 0, () => {
      const file = caller.fds.get(n, "futime");
      file.check("futime", "any");
      file.node.mtimeMs = mtime instanceof Date ? mtime.getTime() : Number(mtime) * 1000;
    });
  },
  fstat: (caller, [fd, options]) => {
    const n = checkFd(fd);
    const bigint = (options as { bigint?: boolean } | undefined)?.bigint === true;
    return prepared("metadata", 0, () => {
      const file = caller.fds.get(n, "fstat");
      file.check("fstat", "any");
      return statsOf(file.node, bigint);
    });
  },
};
