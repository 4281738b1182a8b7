/**
 * The path-based `node:fs` calls on the simulated file system (readFile, writeFile, rename, mkdir,
 * readdir, stat, ...), each prepared once for its synchronous, callback and promise forms
 * (`schedule.ts`). Reads of real-read paths (node_modules, the simulator, what the builder allows)
 * go to the real file system through the native synchronous functions, so even their asynchronous
 * forms complete on simulated time; writes there fail with `EROFS`.
 */
import realFs from "node:fs";
import path from "node:path";
import { nativeOf } from "../../engine/escape-guard.ts";
import { dataBytes, dataOptions, openMode, toPath } from "./args.ts";
import { argError, fsError } from "./errors.ts";
import { readAllFrom } from "./fd-calls.ts";
import { SimFsFileHandle } from "./file-handle.ts";
import { OpenFile } from "./open-file.ts";
import { prepared, type Prepared } from "./schedule.ts";
import type { FsCaller } from "./state.ts";
import { direntOf, statsOf } from "./stats.ts";
import { type FsNode, joinPath } from "./tree.ts";

type AnyFunction = (...args: any[]) => any;

/** The real synchronous reads, taken before `node:fs` is patched (the escape guard's checks skipped). */
const real = {
  readFileSync: nativeOf(realFs.readFileSync as AnyFunction),
  statSync: nativeOf(realFs.statSync as AnyFunction),
  lstatSync: nativeOf(realFs.lstatSync as AnyFunction),
  readdirSync: nativeOf(realFs.readdirSync as AnyFunction),
  accessSync: nativeOf(realFs.accessSync as AnyFunction),
  existsSync: nativeOf(realFs.existsSync as AnyFunction),
  realpathSync: nativeOf(realFs.realpathSync as AnyFunction),
};

export type PathCall = (caller: FsCaller, args: unknown[]) => Prepared;

function readOnly(syscall: string, file: string): never {
  throw fsError("EROFS", syscall, file);
}

/** The size of the file at `file` now, or 0 (what an asynchronous read's delay is drawn for). */
function sizeNow(caller: FsCaller, file: string): number {
  try {
    const node = caller.fs.find(file, "open");
    return node?.kind === "file" ? node.file.sizeBytes : 0;
  } catch {
    return 0;
  }
}

function encode(bytes: Uint8Array, encoding: BufferEncoding | null): Buffer | string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoding === null || (encoding as string) === "buffer" ? buffer : buffer.toString(encoding);
}

/** Writes `bytes` to `file` as one call (`writeFile`, `appendFile`): open, write everything, close. */
function writeWhole(caller: FsCaller, file: string, bytes: Uint8Array, flag: unknown, fallback: string): void {
  const mode = openMode(flag, fallback);
  const node = caller.fs.open(file, mode);
  if (node.kind === "dir") throw fsError("EISDIR", "open", file);
  const open = new OpenFile(caller.fs, node, file, mode, caller.scope);
  open.write(bytes, mode.append ? null : 0);
}

function writeToFd(caller: FsCaller, fd: number, bytes: Uint8Array): void {
  caller.fds.get(fd, "write").write(bytes, null);
}

/** A `FileHandle` given where a path or descriptor may be (`fs.promises.readFile(handle)`) stands for its descriptor. */
function fdOrPath(target: unknown): unknown {
  return target instanceof SimFsFileHandle ? target.fd : target;
}

const readFile: PathCall = (caller, [given, options]) => {
  const target = fdOrPath(given);
  const { encoding, flag } = dataOptions(options, null);
  if (typeof target === "number") {
    const fd = target;
    return prepared("read", 0, () => encode(readAllFrom(caller.fds.get(fd, "read")), encoding));
  }
  const file = toPath(target);
  if (caller.state.isReal(file)) return prepared("read", 0, () => real.readFileSync(file, { encoding, flag }));
  return prepared("read", sizeNow(caller, file), () => {
    const mode = openMode(flag, "r");
    const node = caller.fs.open(file, mode);
    if (node.kind === "dir") throw fsError("EISDIR", "read");
    return encode(readAllFrom(new OpenFile(caller.fs, node, file, mode, caller.scope), true), encoding);
  });
};

function writeCall(fallbackFlag: "w" | "a"): PathCall {
  return (caller, [given, data, options]) => {
    const target = fdOrPath(given);
    const { encoding, flag } = dataOptions(options, "utf8");
    const bytes = dataBytes(data, encoding);
    if (typeof target === "number") {
      const fd = target;
      return prepared("write", bytes.length, () => writeToFd(caller, fd, bytes));
    }
    const file = toPath(target);
    if (caller.state.isReal(file)) return prepared("metadata", 0, () => readOnly("open", file));
    return prepared("write", bytes.length, () => writeWhole(caller, file, bytes, flag, fallbackFlag));
  };
}

const open: PathCall = (caller, [target, flags]) => {
  const file = toPath(target);
  const mode = openMode(flags, "r");
  if (caller.state.isReal(file)) return prepared("metadata", 0, () => readOnly("open", file));
  return prepared("metadata", 0, () => {
    const node = caller.fs.open(file, mode);
    return caller.fds.add(new OpenFile(caller.fs, node, file, mode, caller.scope));
  });
};

/** A path call that changes the namespace: `EROFS` on real-read paths. */
function namespaceCall(body: (caller: FsCaller, file: string, args: unknown[]) => unknown): PathCall {
  return (caller, args) => {
    const file = toPath(args[0]);
    if (caller.state.isReal(file)) return prepared("metadata", 0, () => readOnly("open", file));
    return prepared("metadata", 0, () => body(caller, file, args));
  };
}

const rename: PathCall = (caller, [from, to]) => {
  const source = toPath(from, "oldPath");
  const target = toPath(to, "newPath");
  if (caller.state.isReal(source) || caller.state.isReal(target))
    return prepared("metadata", 0, () => readOnly("rename", source));
  return prepared("metadata", 0, () => caller.fs.rename(source, target));
};

function rmTree(caller: FsCaller, file: string, options: unknown): void {
  const { recursive = false, force = false } = (options ?? {}) as { recursive?: boolean; force?: boolean };
  const node = caller.fs.find(file, "rm");
  if (node === null) {
    if (force) return;
    throw fsError("ENOENT", "rm", file);
  }
  if (node.kind === "dir" && !recursive) {
    const error = fsError("EISDIR", "rm", file);
    // Node's own check raises a SystemError here: another code, and a positive errno.
    error.code = "ERR_FS_EISDIR";
    error.errno = -error.errno;
    error.message = `Path is a directory: rm returned EISDIR (is a directory) ${file}`;
    throw error;
  }
  caller.fs.removeTree(file);
}

const mkdir = namespaceCall((caller, file, [, options]) => {
  const recursive = typeof options === "object" && options !== null && (options as { recursive?: boolean }).recursive;
  return caller.fs.mkdir(file, recursive === true);
});

const mkdtemp: PathCall = (caller, [prefix]) => {
  if (typeof prefix !== "string")
    throw argError("ERR_INVALID_ARG_TYPE", 'The "prefix" argument must be of type string.');
  const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  let suffix = "";
  const bytes = new Uint8Array(6);
  caller.process.fillRandom(bytes);
  for (const b of bytes) suffix += chars[b % chars.length];
  const file = path.resolve(prefix + suffix);
  return prepared("metadata", 0, () => {
    caller.fs.mkdir(file, false);
    return file;
  });
};

const readdir: PathCall = (caller, [target, options]) => {
  const file = toPath(target);
  const o = (typeof options === "object" && options !== null ? options : {}) as {
    withFileTypes?: boolean;
    recursive?: boolean;
  };
  if (caller.state.isReal(file)) return prepared("metadata", 0, () => real.readdirSync(file, options));
  return prepared("metadata", 0, () => {
    const out: unknown[] = [];
    const visit = (dir: string, prefix: string): void => {
      for (const [name, node] of caller.fs.list(dir)) {
        out.push(o.withFileTypes === true ? direntOf(name, node, dir) : prefix + name);
        if (o.recursive === true && node.kind === "dir") visit(joinPath(dir, name), `${prefix}${name}/`);
      }
    };
    visit(file, "");
    return out;
  });
};

function statCall(syscall: "stat" | "lstat"): PathCall {
  return (caller, [target, options]) => {
    const file = toPath(target);
    const o = (options ?? {}) as { bigint?: boolean; throwIfNoEntry?: boolean };
    if (caller.state.isReal(file))
      return prepared("metadata", 0, () => (syscall === "stat" ? real.statSync : real.lstatSync)(file, options));
    return prepared("metadata", 0, () => {
      const node = caller.fs.find(file, syscall);
      if (node === null) {
        if (o.throwIfNoEntry === false) return undefined;
        throw fsError("ENOENT", syscall, file);
      }
      return statsOf(node, o.bigint === true);
    });
  };
}

const access: PathCall = (caller, [target, mode]) => {
  const file = toPath(target);
  if (caller.state.isReal(file)) return prepared("metadata", 0, () => real.accessSync(file, mode));
  return prepared("metadata", 0, () => {
    caller.fs.lookup(file, "access");
  });
};

const exists: PathCall = (caller, [target]) => {
  let file: string;
  try {
    file = toPath(target);
  } catch {
    return prepared("metadata", 0, () => false);
  }
  if (caller.state.isReal(file)) return prepared("metadata", 0, () => real.existsSync(file) as boolean);
  return prepared("metadata", 0, () => {
    try {
      return caller.fs.find(file, "access") !== null;
    } catch {
      return false;
    }
  });
};

const truncate = namespaceCall((caller, file, [, length]) => {
  const node = caller.fs.lookup(file, "open");
  if (node.kind === "dir") throw fsError("EISDIR", "open", file);
  caller.fs.truncateFile(node, typeof length === "number" ? Math.max(0, length) : 0);
});

const copyFile: PathCall = (caller, [from, to, mode]) => {
  const source = toPath(from, "src");
  const target = toPath(to, "dest");
  if (caller.state.isReal(target)) return prepared("metadata", 0, () => readOnly("copyfile", target));
  if (caller.state.isReal(source)) {
    return prepared("write", 0, () => {
      const bytes = real.readFileSync(source) as Buffer;
      writeWhole(caller, target, bytes, (Number(mode) & realFs.constants.COPYFILE_EXCL) !== 0 ? "wx" : "w", "w");
    });
  }
  return prepared("write", sizeNow(caller, source), () => {
    caller.fs.copy(source, target, (Number(mode) & realFs.constants.COPYFILE_EXCL) !== 0);
  });
};

const realpath: PathCall = (caller, [target]) => {
  const file = toPath(target);
  if (caller.state.isReal(file)) return prepared("metadata", 0, () => real.realpathSync(file));
  return prepared("metadata", 0, () => {
    caller.fs.lookup(file, "realpath");
    return file;
  });
};

/** Seconds (number, numeric string or Date) as Node's `utimes` takes them, in ms. */
function timeMs(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  return Number(value) * 1000;
}

/**
 * Owner and mode changes succeed on an existing node and change nothing (every file is 0644, owner 0);
 * `utimes` sets the modification time. Libraries call them around their writes (write-file-atomic).
 */
function attributeCall(syscall: string, apply?: (node: FsNode, args: unknown[]) => void): PathCall {
  return namespaceCall((caller, file, args) => {
    const node = caller.fs.lookup(file, syscall);
    apply?.(node, args);
  });
}

/** Path calls by their Node name (the `Sync` form and `fs.promises` share the body). */
export const PATH_CALLS: Readonly<Record<string, PathCall>> = {
  readFile,
  writeFile: writeCall("w"),
  appendFile: writeCall("a"),
  open,
  rename,
  unlink: namespaceCall((caller, file) => caller.fs.unlink(file)),
  rmdir: namespaceCall((caller, file, [, options]) =>
    (options as { recursive?: boolean } | undefined)?.recursive === true
      ? rmTree(caller, file, { recursive: true })
      : caller.fs.rmdir(file),
  ),
  rm: namespaceCall((caller, file, [, options]) => rmTree(caller, file, options)),
  mkdir,
  mkdtemp,
  readdir,
  stat: statCall("stat"),
  lstat: statCall("lstat"),
  access,
  exists,
  truncate,
  copyFile,
  realpath,
  chmod: attributeCall("chmod"),
  chown: attributeCall("chown"),
  lchown: attributeCall("lchown"),
  utimes: attributeCall("utime", (node, [, , mtime]) => {
    node.mtimeMs = timeMs(mtime);
  }),
  lutimes: attributeCall("lutime", (node, [, , mtime]) => {
    node.mtimeMs = timeMs(mtime);
  }),
};
