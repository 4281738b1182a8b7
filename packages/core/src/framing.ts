/**
 * Length-prefixed message framing over a `Connection`: each frame is a 4-byte little-endian
 * payload length followed by the payload. Works on simulated and real connections alike.
 */
import { IoError } from "./errors.ts";
import type { Connection } from "./providers.ts";

export const FRAME_HEADER_BYTES = 4;
/** Frames above this size are rejected: a corrupted length must not make us buffer gigabytes. */
export const DEFAULT_MAX_FRAME_BYTES = 1 << 20;

export function encodeFrame(payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(FRAME_HEADER_BYTES + payload.length);
  new DataView(frame.buffer).setUint32(0, payload.length, true);
  frame.set(payload, FRAME_HEADER_BYTES);
  return frame;
}

export class FramedConnection {
  /**
   * Received bytes not yet returned, as the chunks they came in (the first may be a tail). Kept
   * as a list, not one growing buffer, so a frame arriving in many small reads is copied once,
   * when it is complete, instead of once per read (quadratic in the number of chunks).
   */
  private chunks: Uint8Array[] = [];
  private bufferedBytes = 0;
  /** Bytes the frame being received needs in total (header included), once its header is in. */
  private neededBytes = FRAME_HEADER_BYTES;
  private ended = false;

  constructor(
    readonly connection: Connection,
    readonly maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES,
  ) {}

  send(payload: Uint8Array): Promise<void> {
    if (payload.length > this.maxFrameBytes) {
      return Promise.reject(
        new IoError("EMSGSIZE", `frame of ${payload.length} bytes exceeds maxFrameBytes ${this.maxFrameBytes}`),
      );
    }
    return this.connection.write(encodeFrame(payload));
  }

  /** The next whole frame, or `null` at a clean end of stream. A stream cut mid-frame is `EPROTO`. */
  async recv(): Promise<Uint8Array | null> {
    for (;;) {
      const frame = this.takeFrame();
      if (frame !== undefined) return frame;
      if (this.ended) {
        if (this.bufferedBytes === 0) return null;
        throw new IoError("EPROTO", `stream ended inside a frame (${this.bufferedBytes} bytes buffered)`);
      }
      const chunk = await this.connection.read();
      if (chunk === null) this.ended = true;
      else if (chunk.length > 0) {
        this.chunks.push(chunk);
        this.bufferedBytes += chunk.length;
      }
    }
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  private takeFrame(): Uint8Array | undefined {
    if (this.bufferedBytes < this.neededBytes) return undefined;
    // The little-endian length, read in place wherever the chunk boundaries fall.
    const length = (this.byteAt(0) | (this.byteAt(1) << 8) | (this.byteAt(2) << 16) | (this.byteAt(3) << 24)) >>> 0;
    if (length > this.maxFrameBytes) {
      throw new IoError("EMSGSIZE", `incoming frame of ${length} bytes exceeds maxFrameBytes ${this.maxFrameBytes}`);
    }
    if (this.bufferedBytes < FRAME_HEADER_BYTES + length) {
      this.neededBytes = FRAME_HEADER_BYTES + length;
      return undefined;
    }
    this.neededBytes = FRAME_HEADER_BYTES;
    this.skip(FRAME_HEADER_BYTES);
    return this.take(length);
  }

  /** The buffered byte at `index` (which must be buffered). */
  private byteAt(index: number): number {
    for (const chunk of this.chunks) {
      if (index < chunk.length) return chunk[index]!;
      index -= chunk.length;
    }
    throw new RangeError(`byte ${index} is not buffered`);
  }

  private skip(count: number): void {
    this.bufferedBytes -= count;
    while (count > 0) {
      const first = this.chunks[0]!;
      if (first.length > count) {
        this.chunks[0] = first.subarray(count);
        return;
      }
      this.chunks.shift();
      count -= first.length;
    }
  }

  /** Removes and returns the first `count` buffered bytes as a fresh array (the caller owns it). */
  private take(count: number): Uint8Array {
    const out = new Uint8Array(count);
    let at = 0;
    while (at < count) {
      const first = this.chunks[0]!;
      const part = first.subarray(0, count - at);
      out.set(part, at);
      at += part.length;
      if (part.length === first.length) this.chunks.shift();
      else this.chunks[0] = first.subarray(part.length);
    }
    this.bufferedBytes -= count;
    return out;
  }
}

/**
 * FNV-1a (32-bit) over `bytes`: cheap, and a corrupted message passes it with odds of about one
 * in four billion. Use it to detect the bit flips a real (and the simulated) network can deliver.
 */
export function fnv1a32(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

export const CHECKSUM_BYTES = 4;
const jsonEncoder = new TextEncoder();
const jsonDecoder = new TextDecoder();

/** A message as `[fnv1a32 u32 LE][JSON]`, for a frame of `FramedConnection`. */
export function encodeChecksummedJson(value: unknown): Uint8Array {
  const json = jsonEncoder.encode(JSON.stringify(value));
  const frame = new Uint8Array(CHECKSUM_BYTES + json.length);
  new DataView(frame.buffer).setUint32(0, fnv1a32(json), true);
  frame.set(json, CHECKSUM_BYTES);
  return frame;
}

/**
 * The message of a frame made by `encodeChecksummedJson`, or `null` when it was corrupted on the
 * way: treat it as a lost message (the checksum or the JSON does not hold).
 */
export function decodeChecksummedJson<T>(frame: Uint8Array): T | null {
  if (frame.length < CHECKSUM_BYTES) return null;
  const json = frame.subarray(CHECKSUM_BYTES);
  if (new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getUint32(0, true) !== fnv1a32(json)) return null;
  try {
    return JSON.parse(jsonDecoder.decode(json)) as T;
  } catch {
    return null;
  }
}
