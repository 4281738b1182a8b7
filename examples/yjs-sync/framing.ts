/**
 * Length-prefixed frames over a simulated TCP connection (a byte stream: one write may arrive in
 * pieces, several in one read). Each frame is a lib0 var-uint length followed by the bytes.
 */
import type { Connection } from "@moonpool/core";
import * as encoding from "lib0/encoding";

export class FramedConnection {
  private buffered = new Uint8Array(0);
  private closed = false;
  private wakeReader: (() => void) | null = null;
  /** Resolves with null when this side closes, so a pending `next()` returns at once. */
  private readonly closing = new Promise<null>((resolve) => (this.wakeReader = () => resolve(null)));

  constructor(readonly connection: Connection) {}

  /** Queues one frame; a failed write (the connection broke) surfaces on the next read instead. */
  send(frame: Uint8Array): void {
    if (this.closed) return;
    const encoder = encoding.createEncoder();
    encoding.writeVarUint8Array(encoder, frame);
    this.connection.write(encoding.toUint8Array(encoder)).catch(() => this.close());
  }

  /** The next complete frame, or null once the peer closed the connection. Rejects when it broke. */
  async next(): Promise<Uint8Array | null> {
    for (;;) {
      const frame = this.takeFrame();
      if (frame !== null) return frame;
      if (this.closed) return null;
      const bytes = await Promise.race([this.connection.read(), this.closing]);
      if (bytes === null) return null;
      const joined = new Uint8Array(this.buffered.length + bytes.length);
      joined.set(this.buffered);
      joined.set(bytes, this.buffered.length);
      this.buffered = joined;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wakeReader?.();
    this.connection.close().catch(() => {});
  }

  /** A whole frame from the buffer, or null when its bytes have not all arrived yet. */
  private takeFrame(): Uint8Array | null {
    if (this.buffered.length === 0) return null;
    let pos = 0;
    let length = 0;
    let shift = 1;
    for (;;) {
      if (pos >= this.buffered.length) return null;
      const byte = this.buffered[pos++]!;
      length += (byte & 0x7f) * shift;
      shift *= 128;
      if (byte < 0x80) break;
    }
    const end = pos + length;
    if (end > this.buffered.length) return null;
    const frame = this.buffered.slice(pos, end);
    this.buffered = this.buffered.slice(end);
    return frame;
  }
}
