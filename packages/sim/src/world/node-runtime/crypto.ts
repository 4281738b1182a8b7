/**
 * Virtual randomness of `crypto` and `node:crypto`, drawn from the calling process's own stream.
 * Argument checks follow Node's, so code that relies on their errors keeps working.
 */
import { Buffer } from "node:buffer";
import type { RandomStream } from "../../engine/rng.ts";
import { checkCallback } from "./timers.ts";

/** Where the functions draw from: a simulated process, or the fixed-seed stream used while modules load. */
export interface RandomSource {
  readonly random: RandomStream;
  fillRandom(bytes: Uint8Array): void;
  /** Calls `callback(null, value)` later, as Node's asynchronous crypto functions do. */
  callBack(callback: (error: null, value: any) => void, value: unknown): void;
}

const TWO_POW_26 = 67_108_864;
const TWO_POW_53 = 9_007_199_254_740_992;

/** A float in [0, 1) with 53 random bits, as V8's `Math.random()` gives. */
export function float53(stream: RandomStream): number {
  const high = stream.u32() >>> 5;
  const low = stream.u32() >>> 6;
  return (high * TWO_POW_26 + low) / TWO_POW_53;
}

export function fillBytes(stream: RandomStream, bytes: Uint8Array): void {
  let i = 0;
  for (; i + 4 <= bytes.length; i += 4) {
    const word = stream.u32();
    bytes[i] = word & 0xff;
    bytes[i + 1] = (word >>> 8) & 0xff;
    bytes[i + 2] = (word >>> 16) & 0xff;
    bytes[i + 3] = word >>> 24;
  }
  if (i < bytes.length) {
    let word = stream.u32();
    for (; i < bytes.length; i++, word >>>= 8) bytes[i] = word & 0xff;
  }
}

const MAX_RANDOM_VALUES_BYTES = 65_536;
/** Node's bound on a `randomBytes` size and on `randomInt`'s range. */
const MAX_RANDOM_BYTES = 2 ** 31 - 1;
const MAX_RANDOM_INT_RANGE = 2 ** 48;

function typeError(code: string, message: string): TypeError {
  return Object.assign(new TypeError(message), { code });
}

function rangeError(message: string): RangeError {
  return Object.assign(new RangeError(message), { code: "ERR_OUT_OF_RANGE" });
}

function bytesOf(view: ArrayBufferView | ArrayBuffer): Uint8Array {
  if (view instanceof ArrayBuffer) return new Uint8Array(view);
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

const INTEGER_ARRAYS = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  BigInt64Array,
  BigUint64Array,
];

export function getRandomValues(source: RandomSource, args: any[]): unknown {
  const [array] = args;
  if (!INTEGER_ARRAYS.some((Type) => array instanceof Type)) {
    throw new DOMException("The data argument must be an integer-type TypedArray", "TypeMismatchError");
  }
  const view = array as ArrayBufferView;
  if (view.byteLength > MAX_RANDOM_VALUES_BYTES) {
    throw new DOMException(
      `The ArrayBufferView's byte length (${view.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`,
      "QuotaExceededError",
    );
  }
  source.fillRandom(bytesOf(view));
  return array;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** A version 4 UUID from 16 random bytes. */
export function randomUUID(source: RandomSource): string {
  const b = new Uint8Array(16);
  source.fillRandom(b);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = (i: number) => HEX[b[i]!]!;
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

/** A version 7 UUID (Node 24's `randomUUIDv7`): 48 bits of `nowMs`, then random bits. */
export function randomUUIDv7(source: RandomSource, nowMs: number): string {
  const b = new Uint8Array(16);
  source.fillRandom(b);
  let ms = Math.max(0, Math.floor(nowMs));
  for (let i = 5; i >= 0; i--, ms = Math.floor(ms / 256)) b[i] = ms % 256;
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = (i: number) => HEX[b[i]!]!;
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

export function randomBytes(source: RandomSource, args: any[]): Buffer | undefined {
  const [size, callback] = args;
  if (typeof size !== "number")
    throw typeError("ERR_INVALID_ARG_TYPE", `The "size" argument must be of type number. Received ${typeof size}`);
  if (!Number.isInteger(size) || size < 0 || size > MAX_RANDOM_BYTES) {
    throw rangeError(
      `The value of "size" is out of range. It must be >= 0 && <= ${MAX_RANDOM_BYTES}. Received ${size}`,
    );
  }
  if (callback !== undefined) checkCallback(callback);
  const buffer = Buffer.alloc(size);
  source.fillRandom(buffer);
  if (callback === undefined) return buffer;
  source.callBack(callback, buffer);
  return undefined;
}

/** The bytes of `buffer` that `randomFill(buffer, offset, size)` fills. */
function fillRange(buffer: unknown, offset: unknown, size: unknown): Uint8Array {
  if (!(buffer instanceof ArrayBuffer) && !ArrayBuffer.isView(buffer)) {
    throw typeError(
      "ERR_INVALID_ARG_TYPE",
      `The "buf" argument must be an instance of ArrayBuffer or ArrayBufferView. Received ${typeof buffer}`,
    );
  }
  const bytes = bytesOf(buffer);
  const elementSize =
    buffer instanceof ArrayBuffer ? 1 : ((buffer as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1);
  const start = offset === undefined ? 0 : Number(offset) * elementSize;
  const length = size === undefined ? bytes.length - start : Number(size) * elementSize;
  if (!Number.isInteger(start) || start < 0 || start > bytes.length)
    throw rangeError(`The value of "offset" is out of range. Received ${String(offset)}`);
  if (!Number.isInteger(length) || length < 0 || start + length > bytes.length)
    throw rangeError(`The value of "size + offset" is out of range. Received ${String(size)}`);
  return bytes.subarray(start, start + length);
}

export function randomFillSync(source: RandomSource, args: any[]): unknown {
  const [buffer, offset, size] = args;
  source.fillRandom(fillRange(buffer, offset, size));
  return buffer;
}

export function randomFill(source: RandomSource, args: any[]): void {
  const callback = args[args.length - 1];
  checkCallback(callback);
  const [buffer, offset, size] = args.slice(0, -1);
  source.fillRandom(fillRange(buffer, offset, size));
  source.callBack(callback, buffer);
}

export function randomInt(source: RandomSource, args: any[]): number | undefined {
  const callback = typeof args[args.length - 1] === "function" ? args[args.length - 1] : undefined;
  const bounds = callback === undefined ? args : args.slice(0, -1);
  const [min, max] = bounds.length >= 2 ? bounds : [0, bounds[0]];
  for (const [name, value] of [
    ["min", min],
    ["max", max],
  ] as const) {
    if (!Number.isSafeInteger(value))
      throw typeError(
        "ERR_INVALID_ARG_TYPE",
        `The "${name}" argument must be a safe integer. Received ${String(value)}`,
      );
  }
  if (!(max > min))
    throw rangeError(
      `The value of "max" is out of range. It must be greater than the value of "min" (${min}). Received ${max}`,
    );
  if (max - min >= MAX_RANDOM_INT_RANGE)
    throw rangeError(`The value of "max - min" is out of range. It must be <= 281474976710655. Received ${max - min}`);
  const value = source.random.rangeInt(min, max);
  if (callback === undefined) return value;
  source.callBack(callback, value);
  return undefined;
}
