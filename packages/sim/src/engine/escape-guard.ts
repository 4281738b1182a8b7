/**
 * The escape guard: while a seed runs, simulated code that reaches for the real world (clock,
 * timers, unseeded randomness, real I/O) fails the seed with an error naming the call, the actor
 * and the stack. The call also throws, so the code cannot go on with a real value; if user code catches
 * that, the seed still fails because the escape was recorded first.
 *
 * The patches are installed once per `run()` and consult `armed`: the engine disarms them while
 * it yields to the real event loop, so the test runner's own timers and clocks keep working.
 * `console.*` is captured the same way: while armed it becomes a trace event of the current actor
 * (no test-runner code runs inside a step: Vitest's console calls Date.now).
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import { format } from "node:util";
import { SimulationEscape } from "@moonpool/core";

const require = createRequire(import.meta.url);

/** Every guarded global, by the name used in messages and in `allowGlobal(name)`. */
export const GUARDED_GLOBALS = [
  "Math.random",
  "Date.now",
  "Date",
  "performance.now",
  "process.hrtime",
  "setTimeout",
  "setInterval",
  "setImmediate",
  "AbortSignal.timeout",
  "crypto.getRandomValues",
  "crypto.randomUUID",
  "crypto.randomBytes",
  "crypto.randomInt",
  "crypto.randomFill",
  // Real I/O, one name per module: its result arrives on the real event loop, outside simulated
  // time (the engine cannot wait for it), and the outside world does not replay.
  "net",
  "tls",
  "http",
  "fetch",
  "dgram",
  "dns",
  "fs",
  "child_process",
] as const;
export type GuardedGlobal = (typeof GUARDED_GLOBALS)[number];

const REPLACEMENT: Readonly<Record<GuardedGlobal, string>> = {
  "Math.random": "ctx.random",
  "Date.now": "ctx.time.now()",
  Date: "ctx.time.now()",
  "performance.now": "ctx.time.now()",
  "process.hrtime": "ctx.time.now()",
  setTimeout: "ctx.time.sleep(ms) or ctx.time.timeout(ms, p)",
  setInterval: "a loop around ctx.time.sleep(ms)",
  setImmediate: "ctx.task.yieldNow()",
  "AbortSignal.timeout": "channel.recv({ timeoutMs }), ctx.time.timeout(ms, p), or an AbortController aborted after ctx.time.sleep(ms)",
  "crypto.getRandomValues": "ctx.random",
  "crypto.randomUUID": "ctx.random",
  "crypto.randomBytes": "ctx.random",
  "crypto.randomInt": "ctx.random.randomRange(lo, hi)",
  "crypto.randomFill": "ctx.random",
  net: "ctx.network.connect(addr) / ctx.network.bind(addr)",
  tls: "ctx.network (simulated TCP; encryption has nothing to test here)",
  http: "a protocol over ctx.network, or a provider interface of your own with a simulated implementation",
  fetch: "a protocol over ctx.network, or a provider interface of your own with a simulated implementation",
  dgram: "ctx.network",
  dns: "addresses from ctx.topology",
  fs: "ctx.storage",
  child_process: "more simulated processes (builder.processes)",
};

/** Name lookups, the same in `node:dns` and `node:dns/promises`. */
const DNS_QUERIES = ["lookup", "lookupService", "resolve", "resolve4", "resolve6", "resolveAny", "resolveCname", "resolveMx", "resolveNs", "resolveSrv", "resolveTxt", "reverse"];

/**
 * The real-I/O entry points guarded per module. Synchronous reads (readFileSync, statSync,
 * existsSync, ...) stay open: Node's module loader uses them when code `require`s lazily inside a
 * step, and a read-only startup file is the user's call. Everything asynchronous, and every
 * synchronous write, is guarded.
 */
const IO_ENTRY_POINTS: readonly { readonly module: string; readonly name: GuardedGlobal; readonly functions: readonly string[] }[] = [
  { module: "node:net", name: "net", functions: ["connect", "createConnection", "createServer"] },
  { module: "node:tls", name: "tls", functions: ["connect", "createServer"] },
  { module: "node:http", name: "http", functions: ["request", "get", "createServer"] },
  { module: "node:https", name: "http", functions: ["request", "get", "createServer"] },
  { module: "node:dgram", name: "dgram", functions: ["createSocket"] },
  { module: "node:dns", name: "dns", functions: DNS_QUERIES },
  { module: "node:dns/promises", name: "dns", functions: DNS_QUERIES },
  {
    module: "node:fs",
    name: "fs",
    functions: [
      "readFile", "writeFile", "appendFile", "open", "readdir", "stat", "lstat", "mkdir", "rm", "rmdir", "unlink", "rename", "copyFile", "access",
      "createReadStream", "createWriteStream", "watch", "watchFile",
      "writeFileSync", "appendFileSync", "mkdirSync", "rmSync", "rmdirSync", "unlinkSync", "renameSync", "copyFileSync",
    ],
  },
  {
    module: "node:fs/promises",
    name: "fs",
    functions: ["readFile", "writeFile", "appendFile", "open", "readdir", "stat", "lstat", "mkdir", "rm", "rmdir", "unlink", "rename", "copyFile", "access", "watch"],
  },
  { module: "node:child_process", name: "child_process", functions: ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] },
];

export interface EscapeSink {
  /** Name of the actor whose code is running. */
  currentActor(): string;
  /** Records the escape on the current seed (the seed fails). */
  escaped(error: SimulationEscape): void;
  /** Receives `console.*` output of simulated code. */
  console(level: "log" | "info" | "warn" | "error" | "debug" | "trace", text: string): void;
}

interface Patch {
  restore(): void;
}

function patchProperty(target: object, key: string, value: unknown): Patch {
  const original = Object.getOwnPropertyDescriptor(target, key);
  Object.defineProperty(target, key, { configurable: true, writable: true, enumerable: original?.enumerable ?? false, value });
  return {
    restore() {
      if (original !== undefined) Object.defineProperty(target, key, original);
      else delete (target as Record<string, unknown>)[key];
    },
  };
}

const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;

export class EscapeGuard {
  armed = false;
  private patches: Patch[] = [];
  private installed = false;

  constructor(
    private readonly sink: EscapeSink,
    private readonly allowed: ReadonlySet<string>,
    private readonly captureConsole: boolean,
  ) {}

  /** Throws (and records) if `name` is guarded and the guard is armed. `call` is what was called. */
  private check(name: GuardedGlobal, call: string = name): void {
    if (!this.armed || this.allowed.has(name)) return;
    const actor = this.sink.currentActor();
    const error = new SimulationEscape(
      call,
      actor,
      `simulated code called ${call} (actor ${actor}); it escapes the simulation and breaks replay. ` +
        `Use ${REPLACEMENT[name]} instead, or allow it with builder.allowGlobal("${name}") if the result cannot affect behaviour.`,
    );
    this.sink.escaped(error);
    throw error;
  }

  install(): void {
    if (this.installed) return;
    this.installed = true;
    const guard = (name: GuardedGlobal, fn: (...args: any[]) => any, call: string = name) =>
      function guarded(this: unknown, ...args: any[]) {
        guard_.check(name, call);
        return fn.apply(this, args);
      };
    const guard_ = this;
    const p = this.patches;

    p.push(patchProperty(Math, "random", guard("Math.random", Math.random)));
    p.push(patchProperty(Date, "now", guard("Date.now", Date.now)));
    const NativeDate = Date;
    const GuardedDate: DateConstructor = new Proxy(NativeDate, {
      construct(target, args, newTarget): object {
        if (args.length === 0) guard_.check("Date");
        return Reflect.construct(target, args, newTarget === GuardedDate ? target : newTarget);
      },
      apply(target, thisArg, args) {
        guard_.check("Date");
        return Reflect.apply(target, thisArg, args);
      },
    });
    p.push(patchProperty(globalThis, "Date", GuardedDate));
    if (typeof performance !== "undefined") {
      p.push(patchProperty(performance, "now", guard("performance.now", performance.now.bind(performance))));
    }
    const hrtime = process.hrtime;
    const guardedHrtime = Object.assign(guard("process.hrtime", hrtime), {
      bigint: guard("process.hrtime", hrtime.bigint),
    });
    p.push(patchProperty(process, "hrtime", guardedHrtime));

    const timers = require("node:timers") as Record<string, (...args: any[]) => any>;
    for (const name of ["setTimeout", "setInterval", "setImmediate"] as const) {
      const native = (globalThis as unknown as Record<string, (...args: any[]) => any>)[name]!;
      const guarded = guard(name, native);
      p.push(patchProperty(globalThis, name, guarded));
      p.push(patchProperty(timers, name, guard(name, timers[name]!)));
    }
    const timersPromises = require("node:timers/promises") as Record<string, (...args: any[]) => any>;
    for (const name of ["setTimeout", "setInterval", "setImmediate"] as const) {
      p.push(patchProperty(timersPromises, name, guard(name, timersPromises[name]!)));
    }

    // A real timer that the global setTimeout patch does not see (Node arms it internally).
    p.push(patchProperty(AbortSignal, "timeout", guard("AbortSignal.timeout", AbortSignal.timeout)));

    const webcrypto = globalThis.crypto;
    if (webcrypto !== undefined) {
      p.push(patchProperty(webcrypto, "getRandomValues", guard("crypto.getRandomValues", webcrypto.getRandomValues.bind(webcrypto))));
      p.push(patchProperty(webcrypto, "randomUUID", guard("crypto.randomUUID", webcrypto.randomUUID.bind(webcrypto))));
    }
    const nodeCrypto = require("node:crypto") as Record<string, (...args: any[]) => any>;
    const cryptoFns: [string, GuardedGlobal][] = [
      ["randomBytes", "crypto.randomBytes"],
      ["randomUUID", "crypto.randomUUID"],
      ["randomInt", "crypto.randomInt"],
      ["randomFill", "crypto.randomFill"],
      ["randomFillSync", "crypto.randomFill"],
      ["pseudoRandomBytes", "crypto.randomBytes"],
    ];
    for (const [key, name] of cryptoFns) {
      const native = nodeCrypto[key];
      if (typeof native === "function") p.push(patchProperty(nodeCrypto, key, guard(name, native)));
    }

    for (const { module, name, functions } of IO_ENTRY_POINTS) {
      const exports = require(module) as Record<string, unknown>;
      const label = module.slice("node:".length).replace("/", ".");
      for (const key of functions) {
        const native = exports[key];
        if (typeof native === "function") p.push(patchProperty(exports, key, guard(name, native as (...args: any[]) => any, `${label}.${key}`)));
      }
    }
    // Sockets made without the module functions (`new net.Socket().connect(...)`, `server.listen`).
    const net = require("node:net") as typeof import("node:net");
    p.push(patchProperty(net.Socket.prototype, "connect", guard("net", net.Socket.prototype.connect, "net.Socket.connect")));
    p.push(patchProperty(net.Server.prototype, "listen", guard("net", net.Server.prototype.listen, "net.Server.listen")));
    if (typeof globalThis.fetch === "function") p.push(patchProperty(globalThis, "fetch", guard("fetch", globalThis.fetch)));

    if (this.captureConsole) {
      for (const level of CONSOLE_METHODS) {
        const native = console[level];
        p.push(
          patchProperty(console, level, function captured(this: unknown, ...args: unknown[]) {
            if (!guard_.armed) return native.apply(console, args);
            guard_.sink.console(level, format(...args));
          }),
        );
      }
    }
    // ESM named imports of builtins (`import { randomUUID } from "node:crypto"`) read a facade
    // that only follows the CommonJS exports after this call (a copy taken before would stay native).
    syncBuiltinESMExports();
  }

  uninstall(): void {
    if (!this.installed) return;
    this.installed = false;
    this.armed = false;
    for (const patch of this.patches.reverse()) patch.restore();
    this.patches = [];
    syncBuiltinESMExports();
  }
}
