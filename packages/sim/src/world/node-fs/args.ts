/**
 * Node's argument forms for `node:fs` calls, decoded: paths (string, Buffer, `file:` URL; relative
 * ones against the working directory, as Node resolves them), open flags, encodings, and data to
 * write. Bad arguments raise Node's own `ERR_INVALID_ARG_*` errors.
 */
import { constants } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { argError } from "./errors.ts";
import type { OpenMode } from "./tree.ts";

export function toPath(value: unknown, name = "path"): string {
  let text: string;
  if (typeof value === "string") text = value;
  else if (value instanceof URL) text = fileURLToPath(value);
  else if (value instanceof Uint8Array) text = Buffer.from(value).toString("utf8");
  else {
    throw argError(
      "ERR_INVALID_ARG_TYPE",
      `The "${name}" argument must be of type string or an instance of Buffer or URL. Received ${describe(value)}`,
    );
  }
  if (text.includes("\0"))
    throw argError(
      "ERR_INVALID_ARG_VALUE",
      `The argument '${name}' must be a string, Uint8Array, or URL without null bytes. Received ${JSON.stringify(text)}`,
    );
  return path.resolve(text);
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "function") return `function ${(value as { name?: string }).name ?? ""}`;
  if (typeof value === "object") return `an instance of ${value.constructor?.name ?? "Object"}`;
  return `type ${typeof value} (${String(value)})`;
}

const FLAG_MODES: Readonly<Record<string, OpenMode>> = (() => {
  const m = (read: boolean, write: boolean, append: boolean, create: boolean, exclusive: boolean, truncate: boolean) =>
    Object.freeze({ read, write, append, create, exclusive, truncate });
  return {
    r: m(true, false, false, false, false, false),
    rs: m(true, false, false, false, false, false),
    sr: m(true, false, false, false, false, false),
    "r+": m(true, true, false, false, false, false),
    "rs+": m(true, true, false, false, false, false),
    "sr+": m(true, true, false, false, false, false),
    w: m(false, true, false, true, false, true),
    wx: m(false, true, false, true, true, true),
    xw: m(false, true, false, true, true, true),
    "w+": m(true, true, false, true, false, true),
    "wx+": m(true, true, false, true, true, true),
    "xw+": m(true, true, false, true, true, true),
    a: m(false, false, true, true, false, false),
    ax: m(false, false, true, true, true, false),
    xa: m(false, false, true, true, true, false),
    as: m(false, false, true, true, false, false),
    sa: m(false, false, true, true, false, false),
    "a+": m(true, false, true, true, false, false),
    "ax+": m(true, false, true, true, true, false),
    "xa+": m(true, false, true, true, true, false),
    "as+": m(true, false, true, true, false, false),
    "sa+": m(true, false, true, true, false, false),
  };
})();

/** Open flags as a string (`"r"`, `"wx"`, ...) or a number (`O_WRONLY | O_CREAT`, ...). */
export function openMode(flags: unknown, fallback = "r"): OpenMode {
  if (flags === undefined || flags === null) return FLAG_MODES[fallback]!;
  if (typeof flags === "string") {
    const mode = FLAG_MODES[flags];
    if (mode === undefined)
      throw argError("ERR_INVALID_ARG_VALUE", `The argument 'flags' is invalid. Received '${flags}'`);
    return mode;
  }
  if (typeof flags === "number") {
    const access = flags & 3;
    return {
      read: access === constants.O_RDONLY || access === constants.O_RDWR,
      write: access === constants.O_WRONLY || access === constants.O_RDWR,
      append: (flags & constants.O_APPEND) !== 0,
      create: (flags & constants.O_CREAT) !== 0,
      exclusive: (flags & constants.O_EXCL) !== 0,
      truncate: (flags & constants.O_TRUNC) !== 0,
    };
  }
  throw argError(
    "ERR_INVALID_ARG_TYPE",
    `The "flags" argument must be of type string or number. Received ${describe(flags)}`,
  );
}

export interface DataOptions {
  readonly encoding: BufferEncoding | null;
  readonly flag: string | number | undefined;
}

/** `"utf8"` or `{ encoding, flag }` (what readFile, writeFile and appendFile take). */
export function dataOptions(options: unknown, defaultEncoding: BufferEncoding | null): DataOptions {
  if (options === undefined || options === null || typeof options === "function")
    return { encoding: defaultEncoding, flag: undefined };
  if (typeof options === "string") return { encoding: options as BufferEncoding, flag: undefined };
  if (typeof options === "object") {
    const o = options as { encoding?: BufferEncoding | null; flag?: string | number };
    return { encoding: o.encoding ?? defaultEncoding, flag: o.flag };
  }
  throw argError(
    "ERR_INVALID_ARG_TYPE",
    `The "options" argument must be of type object. Received ${describe(options)}`,
  );
}

/** Data to write, as bytes (copied: the caller may change its buffer before an asynchronous write lands). */
export function dataBytes(data: unknown, encoding: BufferEncoding | null): Uint8Array {
  if (typeof data === "string") return Buffer.from(data, encoding ?? "utf8");
  if (ArrayBuffer.isView(data))
    return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  throw argError(
    "ERR_INVALID_ARG_TYPE",
    `The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ${describe(data)}`,
  );
}

/** A view of `buffer`'s bytes (any `ArrayBufferView`) to read into. */
export function bufferView(buffer: unknown): Uint8Array {
  if (!ArrayBuffer.isView(buffer)) {
    throw argError(
      "ERR_INVALID_ARG_TYPE",
      `The "buffer" argument must be an instance of Buffer, TypedArray, or DataView. Received ${describe(buffer)}`,
    );
  }
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export function checkFd(fd: unknown): number {
  if (typeof fd !== "number" || !Number.isInteger(fd) || fd < 0 || fd > 2 ** 31 - 1)
    throw argError("ERR_INVALID_ARG_TYPE", `The "fd" argument must be of type number. Received ${describe(fd)}`);
  return fd;
}

/** `position` of read/write: null or undefined or -1 mean the current position. */
export function positionOf(position: unknown): number | null {
  if (position === null || position === undefined || position === -1) return null;
  if (typeof position === "bigint") return Number(position);
  if (typeof position !== "number" || !Number.isInteger(position) || position < 0)
    throw argError("ERR_OUT_OF_RANGE", `The value of "position" is out of range. Received ${String(position)}`);
  return position;
}
