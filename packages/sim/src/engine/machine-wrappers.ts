/**
 * The escape guard's wrappers for what the machine leaks beyond clocks, timers and randomness:
 * its environment (`process.env`, `process.pid`), its files, fresh realms (`vm`), native key
 * generators, heap and resource statistics, DNS resolvers and `Temporal.Now`. Installed by
 * `installEscapeWrappers` with its own wrapping primitives; see docs/node-runtime.md.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { GuardedGlobal } from "./guarded-globals.ts";
import { compiledAtInstall, instantiateNow, withSyncWasm } from "./sync-wasm.ts";

/** The wrapping primitives of `escape-guard.ts`. */
export interface WrapKit {
  patch(target: object, key: string, value: unknown): void;
  method(target: object, key: string, name: GuardedGlobal, call: string): void;
  getter(target: object, key: string, name: GuardedGlobal, call: string): void;
  klass<T extends object>(name: GuardedGlobal, native: T, call: string): T;
  /** Wraps `target[key]` so that a call for which `escapes(args)` holds fails the seed. */
  when(target: object, key: string, name: GuardedGlobal, call: string, escapes: (args: any[]) => boolean): void;
  /** The actor whose code runs now when it is simulated code of a running seed (after adopting), else null. */
  simulatedActor(): string | null;
  /** The environment simulated code of the running seed sees. */
  seedEnv(): Record<string, string>;
  /** Records `fn` as one of the guard's wrappers (`isEscapeWrapper`). */
  mark(fn: (...args: any[]) => unknown): void;
}

/** `process.pid` of simulated code: fixed by the actor's name (FNV-1a), so it replays everywhere. */
export function fixedPid(actor: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < actor.length; i++) hash = Math.imul(hash ^ actor.charCodeAt(i), 0x01000193) >>> 0;
  return 1000 + (hash % 30_000);
}

/** `process.ppid` of simulated code. */
export const FIXED_PPID = 1;

/** A fresh, empty `process.env` for one seed: values become strings on assignment, as Node's. */
export function freshSeedEnv(): Record<string, string> {
  return new Proxy({} as Record<string, string>, {
    set(target, key, value) {
      if (typeof key === "symbol") return Reflect.set(target, key, value);
      target[key] = String(value);
      return true;
    },
    defineProperty(target, key, descriptor) {
      if (typeof key !== "symbol" && "value" in descriptor)
        descriptor = { ...descriptor, value: String(descriptor.value) };
      return Reflect.defineProperty(target, key, descriptor);
    },
  });
}

/** A property of `process` that simulated code reads as `simulated(actor)`, everything else natively. */
function fixedProcessProperty(kit: WrapKit, key: string, simulated: (actor: string) => unknown): void {
  const original = Object.getOwnPropertyDescriptor(process, key);
  if (original === undefined) return;
  let value = original.value;
  const read = original.get ?? (() => value);
  const get = () => {
    const actor = kit.simulatedActor();
    return actor !== null ? simulated(actor) : read.call(process);
  };
  kit.mark(get);
  Object.defineProperty(process, key, {
    configurable: true,
    enumerable: original.enumerable ?? true,
    get,
    set(next: unknown) {
      if (original.set !== undefined) original.set.call(process, next);
      else if (original.writable) value = next;
    },
  });
}

/** A path argument (string, Buffer, URL) as an absolute path, or null for a file descriptor. */
function pathOf(arg: unknown): string | null {
  if (typeof arg === "number") return null;
  if (arg instanceof URL) return arg.protocol === "file:" ? fileURLToPath(arg) : String(arg);
  return path.resolve(String(arg));
}

/** This package's own directory (its sources load lazily in a repository checkout too). */
const PACKAGE_ROOT = path.resolve(fileURLToPath(new URL("../../", import.meta.url)));

/**
 * Directories simulated code may read synchronously: the project (the working directory the run
 * started in), every `node_modules` (Node's module loader reads sources with `fs.readFileSync`
 * when code `require`s lazily) and this package. Files there belong to the checkout, which a
 * replay has too; anything else is the machine's.
 */
export function readableInSimulation(file: string, projectRoot: string): boolean {
  const inside = (root: string) => file === root || file.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
  return inside(projectRoot) || inside(PACKAGE_ROOT) || file.split(path.sep).includes("node_modules");
}

/** Synchronous reads checked against `readableInSimulation`, by the position of their path argument. */
const FS_READS = [
  "readFileSync",
  "statSync",
  "lstatSync",
  "readdirSync",
  "existsSync",
  "accessSync",
  "realpathSync",
  "readlinkSync",
  "opendirSync",
  "statfsSync",
];

const HEAP_STATISTICS = [
  "getHeapStatistics",
  "getHeapSpaceStatistics",
  "getHeapCodeStatistics",
  "getHeapSnapshot",
  "writeHeapSnapshot",
  "queryObjects",
  "takeCoverage",
  "stopCoverage",
];

export function installMachineWrappers(kit: WrapKit): void {
  const require = createRequire(import.meta.url);

  // The environment and the process's identity: fixed for simulated code, real for the runner.
  const processEnv = Object.getOwnPropertyDescriptor(process, "env")!;
  let realEnv = processEnv.value as NodeJS.ProcessEnv;
  const getEnv = () => (kit.simulatedActor() !== null ? kit.seedEnv() : realEnv);
  kit.mark(getEnv);
  Object.defineProperty(process, "env", {
    configurable: true,
    enumerable: true,
    get: getEnv,
    set: (next: NodeJS.ProcessEnv) => {
      realEnv = next;
    },
  });
  fixedProcessProperty(kit, "pid", fixedPid);
  fixedProcessProperty(kit, "ppid", () => FIXED_PPID);
  for (const key of ["getuid", "geteuid", "getgid", "getegid", "getgroups"])
    kit.method(process, key, "os", `process.${key}`);
  kit.method(process, "umask", "os", "process.umask");
  for (const key of ["constrainedMemory", "availableMemory"])
    kit.method(process, key, "process.memoryUsage", `process.${key}`);
  kit.method(process, "getActiveResourcesInfo", "process.cpuUsage", "process.getActiveResourcesInfo");
  if (process.report !== undefined)
    for (const key of ["getReport", "writeReport"]) kit.method(process.report, key, "os", `process.report.${key}`);

  const os = require("node:os") as Record<string, unknown>;
  for (const key of ["homedir", "tmpdir", "release", "version", "machine", "getPriority", "setPriority"])
    kit.method(os, key, "os", `os.${key}`);
  const nav = (globalThis as { navigator?: object }).navigator;
  if (nav !== undefined) {
    const prototype = Object.getPrototypeOf(nav) as object;
    kit.getter(prototype, "hardwareConcurrency", "os", "navigator.hardwareConcurrency");
    // The locale, fixed like Intl's for simulated code (Node reads it from Intl once and caches it).
    for (const [key, fixed] of [
      ["language", () => "en-US"],
      ["languages", () => Object.freeze(["en-US"])],
    ] as const) {
      const read = Object.getOwnPropertyDescriptor(prototype, key)?.get;
      if (read === undefined) continue;
      const get = function (this: unknown) {
        return kit.simulatedActor() !== null ? fixed() : read.call(this);
      };
      kit.mark(get);
      Object.defineProperty(prototype, key, { configurable: true, enumerable: true, get });
    }
  }

  // Files of the machine (reads inside the project and node_modules stay open, see above).
  const fs = require("node:fs") as typeof import("node:fs") & Record<string, unknown>;
  const projectRoot = process.cwd();
  const outside = (args: any[]) => {
    const file = pathOf(args[0]);
    return file !== null && !readableInSimulation(file, projectRoot);
  };
  for (const key of FS_READS) kit.when(fs, key, "fs", `fs.${key}`, outside);
  // `realpathSync.native` hangs off the function: carried over to the wrapper, wrapped as well.
  const realpathNative = { native: fs.realpathSync.native };
  kit.when(realpathNative, "native", "fs", "fs.realpathSync.native", outside);
  kit.when(fs, "realpathSync", "fs", "fs.realpathSync", outside);
  Object.assign(fs.realpathSync, realpathNative);

  // Fresh realms: their globals are not wrapped, so `Math.random()` there is the machine's.
  const vm = require("node:vm") as typeof import("node:vm") & Record<string, unknown>;
  for (const key of ["createContext", "runInNewContext", "runInContext", "measureMemory"])
    kit.method(vm, key, key === "measureMemory" ? "process.memoryUsage" : "vm", `vm.${key}`);
  for (const key of ["runInNewContext", "runInContext"])
    kit.method(vm.Script.prototype, key, "vm", `vm.Script.prototype.${key}`);
  const shadowRealm = (globalThis as { ShadowRealm?: object }).ShadowRealm;
  if (shadowRealm !== undefined) kit.patch(globalThis, "ShadowRealm", kit.klass("vm", shadowRealm, "ShadowRealm"));

  // Native key generators draw from OpenSSL's generator, not from the seed.
  const crypto = require("node:crypto") as typeof import("node:crypto") & Record<string, unknown>;
  kit.method(crypto.ECDH.prototype, "generateKeys", "crypto.generateKeyPair", "crypto.ECDH.prototype.generateKeys");
  for (const Class of [crypto.DiffieHellman, crypto.DiffieHellmanGroup])
    kit.method(
      Class.prototype,
      "generateKeys",
      "crypto.generateKeyPair",
      "crypto.DiffieHellman.prototype.generateKeys",
    );
  kit.when(crypto, "createDiffieHellman", "crypto.generateKeyPair", "crypto.createDiffieHellman", (args) => {
    return typeof args[0] === "number";
  });
  kit.method(crypto, "publicEncrypt", "crypto.generateKeyPair", "crypto.publicEncrypt");
  kit.method(crypto, "secureHeapUsed", "process.memoryUsage", "crypto.secureHeapUsed");

  const v8 = require("node:v8") as Record<string, unknown>;
  for (const key of HEAP_STATISTICS) kit.method(v8, key, "v8.heap", `v8.${key}`);

  // A resolver of its own sends real queries to the machine's name servers (making one is harmless:
  // grpc-js makes one for every channel, and resolves IP targets without it).
  for (const module of ["node:dns", "node:dns/promises"]) {
    const dns = require(module) as Record<string, unknown> & { Resolver: { prototype: object } };
    const label = module === "node:dns" ? "dns" : "dns.promises";
    const prototype = dns.Resolver.prototype as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(prototype)) {
      if (key !== "constructor" && typeof prototype[key] === "function")
        kit.method(prototype, key, "dns", `${label}.Resolver.prototype.${key}`);
    }
    kit.method(Object.getPrototypeOf(prototype), "getServers", "dns", `${label}.Resolver.prototype.getServers`);
    kit.method(dns, "getServers", "dns", `${label}.getServers`);
  }

  const perf = (require("node:perf_hooks") as typeof import("node:perf_hooks")).performance as unknown as Record<
    string,
    unknown
  >;
  for (const target of new Set([perf, globalThis.performance as unknown as Record<string, unknown>])) {
    for (const key of ["eventLoopUtilization", "toJSON", "getEntries", "getEntriesByName", "getEntriesByType"])
      kit.method(target, key, "performance.mark", `performance.${key}`);
    kit.getter(target, "nodeTiming", "performance.mark", "performance.nodeTiming");
  }
  const perfHooks = require("node:perf_hooks") as Record<string, unknown>;
  kit.method(perfHooks, "monitorEventLoopDelay", "performance.mark", "perf_hooks.monitorEventLoopDelay");

  // `Temporal` (behind a flag in some Node majors): `Temporal.Now` reads the real clock and zone.
  const temporal = (globalThis as { Temporal?: { Now?: Record<string, unknown> } }).Temporal;
  if (temporal?.Now !== undefined) {
    for (const key of Object.getOwnPropertyNames(temporal.Now)) {
      if (typeof temporal.Now[key] === "function") kit.method(temporal.Now, key, "Temporal", `Temporal.Now.${key}`);
    }
  }

  for (const target of [globalThis as Record<string, unknown>, require("node:http") as Record<string, unknown>]) {
    // Node 22's lazy WebSocket global loads its undici: with its parser compiled before any seed.
    const websocket = withSyncWasm(() => target.WebSocket) as object | undefined;
    if (websocket !== undefined) kit.patch(target, "WebSocket", kit.klass("WebSocket", websocket, "WebSocket"));
  }
  installAsyncAndProcessGuards(kit);
}

/** Work Node finishes on its thread pool or V8's background threads: the result arrives outside simulated time. */
const CRYPTO_ASYNC = ["pbkdf2", "scrypt", "hkdf", "checkPrime", "argon2"];
const ZLIB_ASYNC = [
  "deflate",
  "deflateRaw",
  "inflate",
  "inflateRaw",
  "gzip",
  "gunzip",
  "unzip",
  "brotliCompress",
  "brotliDecompress",
  "zstdCompress",
  "zstdDecompress",
];

function installAsyncAndProcessGuards(kit: WrapKit): void {
  const require = createRequire(import.meta.url);
  const crypto = require("node:crypto") as Record<string, unknown>;
  for (const key of CRYPTO_ASYNC) kit.method(crypto, key, "crypto.async", `crypto.${key}`);
  kit.when(crypto, "sign", "crypto.async", "crypto.sign", (args) => typeof args[3] === "function");
  kit.when(crypto, "verify", "crypto.async", "crypto.verify", (args) => typeof args[4] === "function");
  kit.method(crypto, "encapsulate", "crypto.generateKeyPair", "crypto.encapsulate");
  const zlib = require("node:zlib") as Record<string, unknown>;
  for (const key of ZLIB_ASYNC) kit.method(zlib, key, "crypto.async", `zlib.${key}`);
  const wasm = (globalThis as { WebAssembly?: Record<string, unknown> }).WebAssembly;
  if (wasm !== undefined) {
    for (const key of ["compile", "instantiate", "compileStreaming", "instantiateStreaming"])
      kit.method(wasm, key, "crypto.async", `WebAssembly.${key}`);
    // undici's loader (Node 22 loads it for WebSocket, read above) instantiates the parser it
    // compiled a microtask later: that instance is made at once, whatever runs by then.
    const guardedInstantiate = wasm.instantiate as (...args: unknown[]) => unknown;
    const instantiate = function instantiate(this: unknown, ...args: unknown[]) {
      return compiledAtInstall(args[0]) ? instantiateNow(args) : guardedInstantiate.apply(this, args);
    };
    kit.mark(instantiate);
    kit.patch(wasm, "instantiate", instantiate);
  }

  for (const key of ["kill", "_kill", "execve"]) kit.method(process, key, "child_process", `process.${key}`);
  kit.method(require("node:cluster") as object, "fork", "child_process", "cluster.fork");
  for (const key of ["setuid", "seteuid", "setgid", "setegid", "setgroups", "initgroups"])
    kit.method(process, key, "os", `process.${key}`);
  kit.method(process, "chdir", "fs", "process.chdir");
  kit.method(process, "openStdin", "fs", "process.openStdin");
  // util.log stamps its line with the real time (Node's own Date, not the global one).
  kit.method(require("node:util") as object, "log", "Date.now", "util.log");
  const childProcess = require("node:child_process") as Record<string, unknown>;
  kit.patch(
    childProcess,
    "ChildProcess",
    kit.klass("child_process", childProcess.ChildProcess as object, "child_process.ChildProcess"),
  );
  const dgram = require("node:dgram") as Record<string, unknown>;
  kit.patch(dgram, "Socket", kit.klass("dgram", dgram.Socket as object, "dgram.Socket"));
  kit.method(process, "loadEnvFile", "fs", "process.loadEnvFile");
  for (const key of ["threadCpuUsage", "_getActiveHandles", "_getActiveRequests"])
    kit.method(process, key, "process.cpuUsage", `process.${key}`);

  const fs = require("node:fs") as Record<string, unknown>;
  for (const key of ["glob", "globSync", "openAsBlob", "fchmod", "fchown", "futimes", "mkdtempDisposableSync"])
    kit.method(fs, key, "fs", `fs.${key}`);
  const fsPromises = require("node:fs/promises") as Record<string, unknown>;
  for (const key of ["glob", "lchmod", "mkdtempDisposable"]) kit.method(fsPromises, key, "fs", `fs.promises.${key}`);
  try {
    const sqlite = require("node:sqlite") as Record<string, unknown>;
    kit.patch(sqlite, "DatabaseSync", kit.klass("fs", sqlite.DatabaseSync as object, "sqlite.DatabaseSync"));
    kit.method(sqlite, "backup", "fs", "sqlite.backup");
  } catch {
    // node:sqlite is behind a flag in this Node major
  }
  kit.method(require("node:tls") as object, "getCACertificates", "tls", "tls.getCACertificates");
  const worker = require("node:worker_threads") as object;
  kit.method(worker, "postMessageToThread", "worker_threads", "worker_threads.postMessageToThread");
  kit.method(require("node:util") as object, "styleText", "os", "util.styleText");

  const perfHooks = require("node:perf_hooks") as Record<string, unknown>;
  kit.method(perfHooks, "eventLoopUtilization", "performance.mark", "perf_hooks.eventLoopUtilization");
  for (const target of [perfHooks, globalThis as Record<string, unknown>]) {
    const observer = target.PerformanceObserver as object | undefined;
    if (observer !== undefined)
      kit.patch(target, "PerformanceObserver", kit.klass("performance.mark", observer, "PerformanceObserver"));
  }
  const v8 = require("node:v8") as Record<string, unknown>;
  kit.method(v8, "getCppHeapStatistics", "v8.heap", "v8.getCppHeapStatistics");
  kit.method(v8, "startCpuProfile", "v8.heap", "v8.startCpuProfile");
  if (typeof v8.GCProfiler === "function")
    kit.patch(v8, "GCProfiler", kit.klass("v8.heap", v8.GCProfiler, "v8.GCProfiler"));
  // The global console and node:console's export differ once a test runner swaps the global one.
  for (const target of new Set([console, require("node:console") as Console]))
    for (const key of ["time", "timeEnd", "timeLog"]) kit.method(target, key, "performance.mark", `console.${key}`);
}
