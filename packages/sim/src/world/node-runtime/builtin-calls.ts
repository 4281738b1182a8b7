/**
 * The virtual answers for Node's own timers, clocks and randomness, by the call names of the escape
 * guard's wrappers. Registered once, when this module loads.
 */
import { defineVirtualCalls, type VirtualImplementation } from "./registry.ts";
import {
  getRandomValues,
  randomBytes,
  randomFill,
  randomFillSync,
  randomInt,
  randomUUID,
  randomUUIDv7,
} from "./crypto.ts";
import { abortSignalTimeout, promiseImmediate, promiseInterval, promiseTimeout } from "./timers-promises.ts";
import { virtualSetImmediate, virtualSetTimeout } from "./timers.ts";
import { VIRTUAL_EPOCH_MS, type VirtualProcess } from "./virtual-process.ts";

const NS_PER_MS = 1_000_000;

function hrtime(process: VirtualProcess, args: any[]): [number, number] {
  const ns = Math.round(process.monotonicMs() * NS_PER_MS);
  let seconds = Math.floor(ns / 1e9);
  let nanos = ns - seconds * 1e9;
  const previous = args[0] as [number, number] | undefined;
  if (previous !== undefined) {
    seconds -= previous[0];
    nanos -= previous[1];
    if (nanos < 0) {
      seconds -= 1;
      nanos += 1e9;
    }
  }
  return [seconds, nanos];
}

const random: VirtualImplementation = (process) => process.mathRandom();

defineVirtualCalls({
  "Math.random": random,
  "Date.now": (process) => process.wallMs(),
  "performance.now": (process) => process.monotonicMs(),
  "performance.timeOrigin": () => VIRTUAL_EPOCH_MS,
  "process.hrtime": (process, _this, args) => hrtime(process, args),
  "process.hrtime.bigint": (process) => BigInt(Math.round(process.monotonicMs() * NS_PER_MS)),
  "process.uptime": (process) => process.monotonicMs() / 1000,
  setTimeout: (process, _this, args) => virtualSetTimeout(process, process.timerIds, args, false),
  setInterval: (process, _this, args) => virtualSetTimeout(process, process.timerIds, args, true),
  setImmediate: (process, _this, args) => virtualSetImmediate(process, args),
  clearTimer: (process, _this, args) => {
    const timer = process.timerIds.get(args[0] as number);
    timer?.close();
    return timer !== undefined;
  },
  "timers/promises.setTimeout": (process, _this, args) => promiseTimeout(process, process.timerIds, args),
  "timers/promises.setImmediate": (process, _this, args) => promiseImmediate(process, args),
  "timers/promises.setInterval": (process, _this, args) => promiseInterval(process, process.timerIds, args),
  "timers/promises.scheduler.wait": (process, _this, args) =>
    promiseTimeout(process, process.timerIds, [args[0], undefined, args[1]]),
  "timers/promises.scheduler.yield": (process) => promiseImmediate(process, []),
  "AbortSignal.timeout": (process, _this, args) => abortSignalTimeout(process, process.timerIds, args),
  "crypto.getRandomValues": (process, _this, args) => getRandomValues(process, args),
  "crypto.randomUUID": (process) => randomUUID(process),
  "crypto.randomUUIDv7": (process) => randomUUIDv7(process, process.wallMs()),
  "crypto.randomBytes": (process, _this, args) => randomBytes(process, args),
  "crypto.pseudoRandomBytes": (process, _this, args) => randomBytes(process, args),
  "crypto.randomFillSync": (process, _this, args) => randomFillSync(process, args),
  "crypto.randomFill": (process, _this, args) => randomFill(process, args),
  "crypto.randomInt": (process, _this, args) => randomInt(process, args),
});
