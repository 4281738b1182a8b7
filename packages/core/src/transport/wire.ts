/**
 * The wire format of one transport frame (all integers little-endian):
 *
 *   [payload length u32][CRC-32C of token ‖ payload u32][token 16 bytes][payload]
 *
 * `WireDecoder` takes bytes as they arrive, in chunks of any size, and yields whole frames; a
 * checksum mismatch or an oversized length is a typed error (the stream cannot be trusted after it).
 */
import { crc32cUpdate } from "./crc32c.ts";
import { ChecksumMismatch, FrameTooLarge } from "./errors.ts";
import { readToken, TOKEN_BYTES, writeToken, type Token } from "./token.ts";

export const WIRE_HEADER_BYTES = 8 + TOKEN_BYTES;
/** Default largest payload: a corrupted length must not make a receiver buffer gigabytes. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1 << 20;

export interface WireFrame {
  readonly token: Token;
  readonly payload: Uint8Array;
}

export function encodeWireFrame(
  token: Token,
  payload: Uint8Array,
  maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES,
): Uint8Array {
  if (payload.length > maxPayloadBytes) throw new FrameTooLarge(payload.length, maxPayloadBytes);
  const frame = new Uint8Array(WIRE_HEADER_BYTES + payload.length);
  writeToken(token, frame, 8);
  frame.set(payload, WIRE_HEADER_BYTES);
  const view = new DataView(frame.buffer);
  view.setUint32(0, payload.length, true);
  view.setUint32(4, crc32cUpdate(0, frame, 8), true);
  return frame;
}

export class WireDecoder {
  private buffer = new Uint8Array(0);
  private start = 0;
  private end = 0;

  constructor(readonly maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES) {}

  /** Bytes received and not yet returned as a frame. */
  get bufferedBytes(): number {
    return this.end - this.start;
  }

  /** Adds received bytes; call `next()` until it returns `undefined`. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (this.end + chunk.length > this.buffer.length) {
      const live = this.end - this.start;
      const size = Math.max(live + chunk.length, this.buffer.length * 2, 4096);
      const grown = size > this.buffer.length ? new Uint8Array(size) : this.buffer;
      grown.set(this.buffer.subarray(this.start, this.end), 0);
      this.buffer = grown;
      this.start = 0;
      this.end = live;
    }
    this.buffer.set(chunk, this.end);
    this.end += chunk.length;
  }

  /** The next whole frame, or `undefined` if more bytes are needed. Throws `FrameTooLarge` or `ChecksumMismatch`. */
  next(): WireFrame | undefined {
    const available = this.end - this.start;
    if (available < WIRE_HEADER_BYTES) return undefined;
    const b = this.buffer;
    const s = this.start;
    const length = (b[s]! | (b[s + 1]! << 8) | (b[s + 2]! << 16) | (b[s + 3]! << 24)) >>> 0;
    if (length > this.maxPayloadBytes) throw new FrameTooLarge(length, this.maxPayloadBytes);
    if (available < WIRE_HEADER_BYTES + length) return undefined;
    const expected = (b[s + 4]! | (b[s + 5]! << 8) | (b[s + 6]! << 16) | (b[s + 7]! << 24)) >>> 0;
    const frameEnd = s + WIRE_HEADER_BYTES + length;
    const actual = crc32cUpdate(0, b, s + 8, frameEnd);
    if (actual !== expected) throw new ChecksumMismatch(expected, actual);
    const token = readToken(b, s + 8);
    const payload = b.slice(s + WIRE_HEADER_BYTES, frameEnd);
    this.start = frameEnd;
    if (this.start === this.end) this.start = this.end = 0;
    return { token, payload };
  }
}
