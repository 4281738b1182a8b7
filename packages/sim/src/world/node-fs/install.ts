/**
 * Routes `node:fs` and `node:fs/promises` to the simulated file system while a seed of a
 * `nodeFs()` simulation runs. The builtins' exports are patched once, for good: a call made by a
 * simulated process of such a seed gets the simulated answer (synchronous forms at once, callback
 * and promise forms after the disk's latency); any other call reaches the previous function (the
 * real one, or the escape guard's check while a seed without `nodeFs()` runs). ESM named imports
 * see the patches through `syncBuiltinESMExports`.
 */
import { markTakeover } from "../../engine/escape-guard.ts";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { argError } from "./errors.ts";
import { FD_CALLS } from "./fd-calls.ts";
import { SimFsFileHandle } from "./file-handle.ts";
import { PATH_CALLS } from "./path-calls.ts";
import { calledBack, type Prepared, promised } from "./schedule.ts";
import { currentFsCaller, type FsCaller } from "./state.ts";

type AnyFunction = (...args: any[]) => any;
type Call = (caller: FsCaller, args: unknown[]) => Prepared;

const require = createRequire(import.meta.url);

function patch(target: object, key: string, make: (previous: AnyFunction) => AnyFunction): void {
  const previous = (target as Record<string, AnyFunction>)[key];
  if (typeof previous !== "function") return;
  const enumerable = Object.getOwnPropertyDescriptor(target, key)?.enumerable ?? true;
  const value = make(previous);
  // Properties hung off Node's function (`realpathSync.native`, `util.promisify`'s custom forms) stay.
  for (const own of Reflect.ownKeys(previous)) {
    if (own === "length" || own === "name" || own === "prototype") continue;
    Object.defineProperty(value, own, Object.getOwnPropertyDescriptor(previous, own)!);
  }
  markTakeover(value, previous);
  Object.defineProperty(target, key, { configurable: true, writable: true, enumerable, value });
}

function syncForm(call: Call): (previous: AnyFunction) => AnyFunction {
  return (previous) =>
    function simulatedSync(this: unknown, ...args: unknown[]) {
      const caller = currentFsCaller();
      return caller === null ? previous.apply(this, args) : call(caller, args).run();
    };
}

function callbackForm(name: string, call: Call): (previous: AnyFunction) => AnyFunction {
  return (previous) =>
    function simulatedCallback(this: unknown, ...args: unknown[]) {
      const caller = currentFsCaller();
      if (caller === null) return previous.apply(this, args);
      const callback = args.pop();
      if (typeof callback !== "function")
        throw argError(
          "ERR_INVALID_ARG_TYPE",
          `The "cb" argument must be of type function. Received ${typeof callback}`,
        );
      const prepared = call(caller, args);
      if (name === "exists") {
        // `fs.exists` calls back with the answer alone (no error argument).
        calledBack(caller, prepared, (_error, found) => (callback as AnyFunction)(found === true));
        return;
      }
      calledBack(caller, prepared, callback as AnyFunction);
    };
}

function promiseForm(name: string, call: Call): (previous: AnyFunction) => AnyFunction {
  return (previous) =>
    function simulatedPromise(this: unknown, ...args: unknown[]) {
      const caller = currentFsCaller();
      if (caller === null) return previous.apply(this, args);
      let prepared: Prepared;
      try {
        prepared = call(caller, args);
      } catch (error) {
        return Promise.reject(error);
      }
      const result = promised(caller, prepared);
      return name === "open" ? result.then((fd) => new SimFsFileHandle(caller, fd as number)) : result;
    };
}

/** `createReadStream`/`createWriteStream`: Node's own stream classes over the simulated callbacks. */
function streamForm(
  fs: Record<string, any>,
  kind: "ReadStream" | "WriteStream",
): (previous: AnyFunction) => AnyFunction {
  return (previous) =>
    function simulatedStream(this: unknown, ...args: unknown[]) {
      if (currentFsCaller() === null) return previous.apply(this, args);
      const [path, options] = args;
      const o = typeof options === "string" ? { encoding: options } : ((options ?? {}) as object);
      // The module's functions (patched above) answer the stream's open, read, write and close.
      const simulated = { open: fs.open, read: fs.read, write: fs.write, close: fs.close, fsync: fs.fsync };
      return new fs[kind](path, { ...o, fs: simulated });
    };
}

let installed = false;

/** Installs the routing (idempotent). Outside a `nodeFs()` seed every patched function behaves like Node's. */
export function installNodeFs(): void {
  if (installed) return;
  installed = true;
  const fs = require("node:fs") as Record<string, any>;
  const promises = require("node:fs/promises") as Record<string, any>;
  const calls: [string, Call][] = [...Object.entries(PATH_CALLS), ...Object.entries(FD_CALLS)];
  for (const [name, call] of calls) {
    patch(fs, `${name}Sync`, syncForm(call));
    patch(fs, name, callbackForm(name, call));
    if (name in PATH_CALLS && name !== "exists") patch(promises, name, promiseForm(name, call));
  }
  patch(fs, "createReadStream", streamForm(fs, "ReadStream"));
  patch(fs, "createWriteStream", streamForm(fs, "WriteStream"));
  syncBuiltinESMExports();
}

installNodeFs();
