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
  private buffered: Uint8Array = new Uint8Array(0);
  private ended = false;

  constructor(
    readonly connection: Connection,
    readonly maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES,
  ) {}

  send(payload: Uint8Array): Promise<void> {
    if (payload.length > this.maxFrameBytes) {
      return Promise.reject(new IoError("EMSGSIZE", `frame of ${payload.length} bytes exceeds maxFrameBytes ${this.maxFrameBytes}`));
    }
    return this.connection.write(encodeFrame(payload));
  }

  /** The next whole frame, or `null` at a clean end of stream. A stream cut mid-frame is `EPROTO`. */
  async recv(): Promise<Uint8Array | null> {
    for (;;) {
      const frame = this.takeFrame();
      if (frame !== undefined) return frame;
      if (this.ended) {
        if (this.buffered.length === 0) return null;
        throw new IoError("EPROTO", `stream ended inside a frame (${this.buffered.length} bytes buffered)`);
      }
      const chunk = await this.connection.read();
      if (chunk === null) this.ended = true;
      else this.append(chunk);
    }
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  private append(chunk: Uint8Array): void {
    if (this.buffered.length === 0) {
      this.buffered = chunk;
      return;
    }
    const merged = new Uint8Array(this.buffered.length + chunk.length);
    merged.set(this.buffered, 0);
    merged.set(chunk, this.buffered.length);
    this.buffered = merged;
  }

  private takeFrame(): Uint8Array | undefined {
    if (this.buffered.length < FRAME_HEADER_BYTES) return undefined;
    const view = new DataView(this.buffered.buffer, this.buffered.byteOffset, this.buffered.byteLength);
    const length = view.getUint32(0, true);
    if (length > this.maxFrameBytes) {
      throw new IoError("EMSGSIZE", `incoming frame of ${length} bytes exceeds maxFrameBytes ${this.maxFrameBytes}`);
    }
    if (this.buffered.length < FRAME_HEADER_BYTES + length) return undefined;
    const frame = this.buffered.slice(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length);
    this.buffered = this.buffered.subarray(FRAME_HEADER_BYTES + length);
    return frame;
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
