/**
 * The escape guard: while a seed runs, simulated code that reaches for the real world (clock,
 * timers, unseeded randomness, real I/O, the machine's state) fails the seed with an error naming
 * the call, the actor and the stack. The call also throws, so the code cannot go on with a real
 * value; if user code catches that, the seed still fails because the escape was recorded first.
 *
 * One mechanism: permanent wrappers, installed once when this module loads (so before any
 * simulation module is imported: a library that keeps `const rand = Math.random` at import time
 * keeps the wrapper). Outside a seed, and while the engine yields to the real event loop, a wrapper
 * calls the native function; while a seed runs it first asks the seed's virtual runtime
 * (`nodeRuntime()`, see docs/node-runtime.md) for a virtual answer, and otherwise hands the call to
 * the active guard's `intercept`, which fails the seed.
 * `console.*` is captured per run: test runners replace the console object between files.
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import path from "node:path";
import { format, promisify } from "node:util";
import { SimulationEscape } from "@moonpool/core";
// Taken first: the engine and runner keep the native functions, never the wrappers.
import "./natives.ts";
import { freshSeedEnv, installMachineWrappers, readableInSimulation } from "./machine-wrappers.ts";
import { fixedLocaleNatives, installFixedZoneAndLocale, utcConstructorArgs, utcToString } from "./fixed-locale.ts";
import { type GuardedGlobal, IO_ENTRY_POINTS, REPLACEMENT } from "./guarded-globals.ts";

export { GUARDED_GLOBALS, type GuardedGlobal } from "./guarded-globals.ts";

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
  Object.defineProperty(target, key, {
    configurable: true,
    writable: true,
    enumerable: original?.enumerable ?? false,
    value,
  });
  return {
    restore() {
      if (original !== undefined) Object.defineProperty(target, key, original);
      else delete (target as Record<string, unknown>)[key];
    },
  };
}

const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;

/** The guard of the running campaign, or null: the permanent wrappers consult it on every call. */
let active: EscapeGuard | null = null;

type AnyFunction = (...args: any[]) => any;

/** A virtual implementation of one guarded call: `this` and the arguments of the call, its result. */
export type VirtualCall = (thisArg: unknown, args: any[]) => unknown;

/** Answers guarded calls with virtual values instead of failing the seed (the opt-in Node runtime). */
export interface VirtualDispatch {
  /** The virtual implementation of `call` for the code running now, or undefined: the call escapes. */
  implementation(call: string): VirtualCall | undefined;
}

/**
 * Marks a virtual timer object: `clearTimeout`, `clearInterval` and `clearImmediate` cancel it
 * through this method instead of handing it to Node's timer list, inside or outside a seed.
 */
export const CLEAR_VIRTUAL_TIMER = Symbol("moonpool.clearVirtualTimer");

/** The virtual answers of the running seed (its Node runtime), or null outside a seed or without one. */
export function activeVirtualDispatch(): VirtualDispatch | null {
  return active !== null && active.armed ? active.virtual : null;
}

/** Answers for calls made while simulation modules load (fixed-seed randomness), or null. */
let loading: VirtualDispatch | null = null;

/** Runs `load` (an `import()` of simulation modules) with `dispatch` answering the calls it knows. */
export async function whileLoading<T>(dispatch: VirtualDispatch, load: () => Promise<T>): Promise<T> {
  const previous = loading;
  loading = dispatch;
  try {
    return await load();
  } finally {
    loading = previous;
  }
}

/**
 * Arms the guard for a callback Node runs between engine steps on behalf of a simulated process
 * (see `EscapeGuard.adoptBetweenSteps`); returns how to stand down again, or null when nothing
 * was adopted (no seed, the guard already armed, or code that belongs to no simulated process).
 */
function adopt(): (() => void) | null {
  if (active === null || active.armed || active.adoptBetweenSteps === null) return null;
  const leave = active.adoptBetweenSteps();
  if (leave === null) return null;
  adoptedDepth++;
  return () => {
    adoptedDepth--;
    leave();
  };
}

let adoptedDepth = 0;

/**
 * Runs `run` with the guard down. Only for a synchronous step of Node's own whose result is the
 * same every time and cached for good (a warm-up), never for user code.
 */
export function runUnguarded<T>(run: () => T): T {
  if (active === null || !active.armed) return run();
  active.armed = false;
  try {
    return run();
  } finally {
    active.armed = true;
  }
}

/** True while code Node runs between steps is being answered as a simulated process. */
export function runningAdopted(): boolean {
  return adoptedDepth > 0;
}

/** Runs `run` as the simulated process that owns the code running between steps, if any. */
export function runAdopted<T>(run: () => T): T {
  const leave = adopt();
  if (leave === null) return run();
  try {
    return run();
  } finally {
    leave();
  }
}

/** The function each guard wrapper stands in front of. */
const wrappedNatives = new WeakMap<AnyFunction, AnyFunction>();

/**
 * True for a function the escape guard put in place of a native one (a guard, a virtual answer, a
 * fixed zone or locale, a fixed `process` property's getter): for the test that enumerates Node's
 * globals and builtin modules.
 */
export function isEscapeWrapper(value: unknown): boolean {
  return (
    typeof value === "function" && (wrappedNatives.has(value as AnyFunction) || fixedLocaleNatives.has(value as object))
  );
}

/**
 * The native function behind a guard wrapper (or `fn` itself): for simulated modules that take over a
 * guarded entry point for registered processes and must call the real implementation on their behalf.
 */
export function nativeOf<F extends AnyFunction>(fn: F): F {
  return (wrappedNatives.get(fn) as F | undefined) ?? fn;
}

/**
 * Records a simulated module's takeover of a guarded entry point (it serves registered processes
 * and calls `previous`, the guard, for everything else) as one of the guard's wrappers.
 */
export function markTakeover(takeover: AnyFunction, previous: AnyFunction): void {
  wrappedNatives.set(takeover, nativeOf(previous));
}

/** A wrapper that hands the call to the active guard while a seed runs. */
function wrapFunction(name: GuardedGlobal, native: AnyFunction, call: string = name): AnyFunction {
  const answer = (thisArg: unknown, args: any[]): unknown => {
    if (active !== null && active.armed) {
      const virtual = active.virtual?.implementation(call);
      if (virtual !== undefined) return virtual(thisArg, args);
      active.intercept(name, call);
    } else if (loading !== null) {
      const virtual = loading.implementation(call);
      if (virtual !== undefined) return virtual(thisArg, args);
    }
    return native.apply(thisArg, args);
  };
  const guarded = function guarded(this: unknown, ...args: any[]) {
    const leave = adopt();
    if (leave === null) return answer(this, args);
    try {
      return answer(this, args);
    } finally {
      leave();
    }
  };
  wrappedNatives.set(guarded, native);
  return guarded;
}

/** `clear*` for timers that may be virtual: a virtual one is cancelled by its own method. */
function wrapClear(native: AnyFunction): AnyFunction {
  const clear = function clear(this: unknown, timer: unknown) {
    if (typeof timer === "object" && timer !== null && CLEAR_VIRTUAL_TIMER in timer) {
      (timer as { [CLEAR_VIRTUAL_TIMER](): void })[CLEAR_VIRTUAL_TIMER]();
      return;
    }
    const cleared = runAdopted(() => {
      if (typeof timer !== "number" || active === null || !active.armed) return false;
      const virtual = active.virtual?.implementation("clearTimer");
      return virtual !== undefined && virtual(this, [timer]) === true;
    });
    if (cleared) return;
    return native.call(this, timer);
  };
  wrappedNatives.set(clear, native);
  return clear;
}

/** The same for a class: `new` and plain calls are both checked, statics and `instanceof` keep working. */
function wrapClass<T extends object>(name: GuardedGlobal, native: T, call: string = name): T {
  const wrapped: T = new Proxy(native, {
    construct(target, args, newTarget): object {
      if (active !== null && active.armed) active.intercept(name, call);
      return Reflect.construct(
        target as AnyFunction,
        args,
        newTarget === wrapped ? (target as AnyFunction) : newTarget,
      );
    },
    apply(target, thisArg, args) {
      if (active !== null && active.armed) active.intercept(name, call);
      return Reflect.apply(target as AnyFunction, thisArg, args);
    },
  });
  wrappedNatives.set(wrapped as AnyFunction, native as AnyFunction);
  return wrapped;
}

function wrapMethod(target: object, key: string, name: GuardedGlobal, call: string): void {
  const native = (target as Record<string, unknown>)[key];
  if (typeof native === "function") patchProperty(target, key, wrapFunction(name, native as AnyFunction, call));
}

function wrapGetter(target: object, key: string, name: GuardedGlobal, call: string): void {
  let owner: object | null = target;
  let descriptor: PropertyDescriptor | undefined;
  while (owner !== null && (descriptor = Object.getOwnPropertyDescriptor(owner, key)) === undefined)
    owner = Object.getPrototypeOf(owner);
  if (descriptor === undefined) return;
  const read = descriptor.get !== undefined ? descriptor.get : () => descriptor!.value;
  const get = function (this: unknown) {
    return runAdopted(() => {
      if (active !== null && active.armed) {
        const virtual = active.virtual?.implementation(call);
        if (virtual !== undefined) return virtual(this, []);
        active.intercept(name, call);
      }
      return read.call(this);
    });
  };
  wrappedNatives.set(get, read);
  Object.defineProperty(target, key, { configurable: true, enumerable: descriptor.enumerable ?? false, get });
}

/**
 * True while simulated code runs: a seed's step, code Node runs between steps for a simulated
 * process, or simulation modules loading. Such code sees the fixed time zone and locale.
 */
function inSimulatedCode(): boolean {
  if (loading !== null) return true;
  if (active === null) return false;
  if (active.armed) return true;
  if (active.adoptBetweenSteps === null) return false;
  return runAdopted(() => active !== null && active.armed);
}

/** True while a seed's simulated code runs (a guard is installed and armed). */
export function simulationArmed(): boolean {
  return active !== null && active.armed;
}

let wrappersInstalled = false;

/**
 * Installs the permanent wrappers (once per realm; this module calls it when it loads). Idempotent.
 * Outside a seed every wrapper behaves exactly like the native function.
 */
export function installEscapeWrappers(): void {
  if (wrappersInstalled) return;
  wrappersInstalled = true;
  const require = createRequire(import.meta.url);

  wrapMethod(Math, "random", "Math.random", "Math.random");
  wrapMethod(Date, "now", "Date.now", "Date.now");
  const NativeDate = Date;
  const GuardedDate: DateConstructor = new Proxy(NativeDate, {
    construct(target, args, newTarget): object {
      if (args.length > 0) {
        if (inSimulatedCode()) args = utcConstructorArgs(args);
      } else {
        args = runAdopted(() => {
          if (active === null || !active.armed) return args;
          const virtual = active.virtual?.implementation("Date.now");
          if (virtual !== undefined) return [virtual(undefined, [])];
          active.intercept("Date", "Date");
          return args;
        });
      }
      return Reflect.construct(target, args, newTarget === GuardedDate ? target : newTarget);
    },
    apply(target, thisArg, args) {
      return runAdopted(() => {
        if (active !== null && active.armed) {
          // `Date()` ignores its arguments and formats the current time like `new Date().toString()`.
          const virtual = active.virtual?.implementation("Date.now");
          if (virtual !== undefined) return utcToString(new target(virtual(undefined, []) as number));
          active.intercept("Date", "Date");
        }
        return Reflect.apply(target, thisArg, args);
      });
    },
  });
  wrappedNatives.set(GuardedDate, NativeDate);
  patchProperty(globalThis, "Date", GuardedDate);
  installFixedZoneAndLocale(inSimulatedCode, patchProperty);

  const perf = (require("node:perf_hooks") as typeof import("node:perf_hooks")).performance;
  for (const target of new Set([perf, globalThis.performance])) {
    if (target === undefined) continue;
    patchProperty(target, "now", wrapFunction("performance.now", perf.now.bind(perf)));
    wrapGetter(target, "timeOrigin", "performance.timeOrigin", "performance.timeOrigin");
    for (const key of ["mark", "measure"]) wrapMethod(target, key, "performance.mark", `performance.${key}`);
  }
  const hrtime = process.hrtime;
  patchProperty(
    process,
    "hrtime",
    Object.assign(wrapFunction("process.hrtime", hrtime), {
      bigint: wrapFunction("process.hrtime", hrtime.bigint, "process.hrtime.bigint"),
    }),
  );
  wrapMethod(process, "uptime", "process.uptime", "process.uptime");
  // Native addons (`require` of a `.node` file ends here): their threads and I/O do not replay.
  wrapMethod(process, "dlopen", "process.dlopen", "process.dlopen");
  wrapMethod(process, "cpuUsage", "process.cpuUsage", "process.cpuUsage");
  wrapMethod(process, "resourceUsage", "process.cpuUsage", "process.resourceUsage");
  const memoryUsage = process.memoryUsage;
  patchProperty(
    process,
    "memoryUsage",
    Object.assign(wrapFunction("process.memoryUsage", memoryUsage), {
      rss: wrapFunction("process.memoryUsage", memoryUsage.rss, "process.memoryUsage.rss"),
    }),
  );

  const timers = require("node:timers") as Record<string, AnyFunction>;
  const timersPromises = require("node:timers/promises") as Record<string, AnyFunction> & { scheduler?: object };
  for (const name of ["setTimeout", "setInterval", "setImmediate"] as const)
    patchProperty(timersPromises, name, wrapFunction(name, timersPromises[name]!, `timers/promises.${name}`));
  const globals = globalThis as unknown as Record<string, AnyFunction>;
  for (const name of ["setTimeout", "setInterval", "setImmediate"] as const) {
    for (const target of [globals, timers]) {
      const wrapped = wrapFunction(name, target[name]!);
      // `util.promisify(setTimeout)` follows this to the promise version, as with Node's own.
      if (name !== "setInterval")
        Object.defineProperty(wrapped, promisify.custom, { value: timersPromises[name], configurable: true });
      patchProperty(target, name, wrapped);
    }
  }
  for (const name of ["clearTimeout", "clearInterval", "clearImmediate"] as const) {
    for (const target of [globals, timers]) patchProperty(target, name, wrapClear(target[name]!));
  }
  if (timersPromises.scheduler !== undefined) {
    wrapMethod(timersPromises.scheduler, "wait", "setTimeout", "timers/promises.scheduler.wait");
    wrapMethod(timersPromises.scheduler, "yield", "setImmediate", "timers/promises.scheduler.yield");
  }
  // A real timer that the global setTimeout patch does not see (Node arms it internally).
  patchProperty(AbortSignal, "timeout", wrapFunction("AbortSignal.timeout", AbortSignal.timeout));

  const nodeCrypto = require("node:crypto") as Record<string, AnyFunction> & { webcrypto?: typeof globalThis.crypto };
  for (const webcrypto of new Set([globalThis.crypto, nodeCrypto.webcrypto])) {
    if (webcrypto === undefined) continue;
    patchProperty(
      webcrypto,
      "getRandomValues",
      wrapFunction("crypto.getRandomValues", webcrypto.getRandomValues.bind(webcrypto)),
    );
    patchProperty(webcrypto, "randomUUID", wrapFunction("crypto.randomUUID", webcrypto.randomUUID.bind(webcrypto)));
    wrapGetter(webcrypto, "subtle", "crypto.subtle", "crypto.subtle");
  }
  const cryptoFns: [string, GuardedGlobal][] = [
    ["randomBytes", "crypto.randomBytes"],
    ["randomUUID", "crypto.randomUUID"],
    ["randomInt", "crypto.randomInt"],
    ["randomFill", "crypto.randomFill"],
    ["randomFillSync", "crypto.randomFill"],
    ["pseudoRandomBytes", "crypto.randomBytes"],
    ["randomUUIDv7", "crypto.randomUUID"],
  ];
  for (const [key, name] of cryptoFns) wrapMethod(nodeCrypto, key, name, `crypto.${key}`);
  // node:crypto's own `getRandomValues` and `subtle` are fixed getters that read webcrypto's, patched above.

  for (const { module, name, functions } of IO_ENTRY_POINTS) {
    const exports = require(module) as Record<string, unknown>;
    const label = module.slice("node:".length).replace("/", ".");
    for (const key of functions) wrapMethod(exports, key, name, `${label}.${key}`);
  }
  // Opening for reading stays open like the other synchronous reads; opening for writing is guarded.
  const fs = require("node:fs") as typeof import("node:fs");
  const openSync = fs.openSync;
  const guardedOpenSync = function guardedOpenSync(this: unknown, ...args: Parameters<typeof openSync>) {
    const flags = args[1];
    const readOnly =
      flags === undefined || flags === "r" || flags === "rs" || flags === "sr" || flags === fs.constants.O_RDONLY;
    runAdopted(() => {
      if (active === null || !active.armed) return;
      if (!readOnly || !readableInSimulation(path.resolve(String(args[0])), projectRoot))
        active.intercept("fs", "fs.openSync");
    });
    return openSync.apply(this, args);
  };
  wrappedNatives.set(guardedOpenSync, openSync);
  patchProperty(fs, "openSync", guardedOpenSync);
  const projectRoot = process.cwd();
  installMachineWrappers({
    patch: patchProperty,
    method: wrapMethod,
    getter: wrapGetter,
    klass: wrapClass,
    when(target, key, name, call, escapes) {
      const native = (target as Record<string, unknown>)[key];
      if (typeof native !== "function") return;
      const checked = function checked(this: unknown, ...args: any[]) {
        runAdopted(() => {
          if (active !== null && active.armed && escapes(args)) active.intercept(name, call);
        });
        return (native as AnyFunction).apply(this, args);
      };
      wrappedNatives.set(checked, native as AnyFunction);
      patchProperty(target, key, checked);
    },
    simulatedActor: () => runAdopted(() => (active !== null && active.armed ? active.actorName() : null)),
    seedEnv: () => active!.seedEnv(),
    mark: (fn) => wrappedNatives.set(fn, fn),
  });
  // Sockets made without the module functions (`new net.Socket().connect(...)`, `server.listen`).
  const net = require("node:net") as typeof import("node:net");
  wrapMethod(net.Socket.prototype, "connect", "net", "net.Socket.connect");
  wrapMethod(net.Server.prototype, "listen", "net", "net.Server.listen");
  if (typeof globalThis.fetch === "function")
    patchProperty(globalThis, "fetch", wrapFunction("fetch", globalThis.fetch));

  const workerThreads = require("node:worker_threads") as Record<string, object>;
  for (const [key, name] of [
    ["MessageChannel", "MessageChannel"],
    ["BroadcastChannel", "BroadcastChannel"],
    ["Worker", "worker_threads"],
  ] as const) {
    const native = workerThreads[key];
    if (native !== undefined)
      patchProperty(workerThreads, key, wrapClass(name, native, key === "Worker" ? "worker_threads.Worker" : key));
    const global = (globalThis as Record<string, unknown>)[key];
    if (typeof global === "function") patchProperty(globalThis, key, wrapClass(name, global, key));
  }
  if (typeof (Atomics as { waitAsync?: unknown }).waitAsync === "function")
    wrapMethod(Atomics, "waitAsync", "Atomics.waitAsync", "Atomics.waitAsync");

  // ESM named imports of builtins (`import { randomUUID } from "node:crypto"`) read a facade
  // that only follows the CommonJS exports after this call (a copy taken before would stay native).
  syncBuiltinESMExports();
}

export class EscapeGuard {
  armed = false;
  /** Virtual answers for guarded calls (the Node runtime of the running seed), or null: every call escapes. */
  virtual: VirtualDispatch | null = null;
  /**
   * Set by the campaign's 'uncaughtException' handler: Node then calls `setImmediate` itself to
   * resume its tick queue, and an escape there would end the whole process instead of the seed.
   */
  passNextSetImmediate = false;
  /**
   * Between steps the guard is down, yet Node may run a simulated process's code then (the callbacks
   * of its native HTTP/2 session run from the real event loop). Set by the campaign: when the code
   * running now belongs to a simulated process, arms the guard as that process and returns how to
   * stand down again; otherwise null, and the call is the real one.
   */
  adoptBetweenSteps: (() => (() => void) | null) | null = null;
  private consolePatches: Patch[] = [];
  private env: Record<string, string> | null = null;
  private installed = false;

  constructor(
    private readonly sink: EscapeSink,
    private readonly allowed: ReadonlySet<string>,
    private readonly captureConsole: boolean,
  ) {}

  /**
   * A guarded entry point was called while a seed runs: record the escape on the seed and throw
   * (unless the builder allowed it). `call` is what was called.
   */
  intercept(name: GuardedGlobal, call: string): void {
    if (this.allowed.has(name)) return;
    if (name === "setImmediate" && this.passNextSetImmediate) {
      this.passNextSetImmediate = false;
      return;
    }
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

  /** The actor whose code is running (for values fixed per actor, such as `process.pid`). */
  actorName(): string {
    return this.sink.currentActor();
  }

  /** Starts a seed: its simulated code gets a fresh, empty `process.env`. */
  startSeed(): void {
    this.env = freshSeedEnv();
  }

  /** The `process.env` simulated code of the running seed sees. */
  seedEnv(): Record<string, string> {
    this.env ??= freshSeedEnv();
    return this.env;
  }

  /** Makes this the guard the wrappers consult (one campaign per realm) and captures the console. */
  install(): void {
    if (this.installed) return;
    installEscapeWrappers();
    this.installed = true;
    active = this;
    if (this.captureConsole) {
      const guard = this;
      for (const level of CONSOLE_METHODS) {
        const native = console[level];
        this.consolePatches.push(
          patchProperty(console, level, function captured(this: unknown, ...args: unknown[]) {
            if (!guard.armed) return native.apply(console, args);
            guard.sink.console(level, format(...args));
          }),
        );
      }
    }
  }

  uninstall(): void {
    if (!this.installed) return;
    this.installed = false;
    this.armed = false;
    if (active === this) active = null;
    for (const patch of this.consolePatches.reverse()) patch.restore();
    this.consolePatches = [];
  }
}

installEscapeWrappers();
