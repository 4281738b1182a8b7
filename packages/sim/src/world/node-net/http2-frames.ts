/**
 * Where the HTTP/2 frames of a byte stream end, so a simulated socket can hand Node's HTTP/2 session
 * one frame at a time. Node feeds a socket that is not its own to the session from JavaScript (a
 * `JSStreamSocket`), so every frame of one read is handled in one synchronous call, while a native
 * socket's session calls into JavaScript once per frame and Node drains the microtask and `nextTick`
 * queues after each call. Libraries rely on that drain: `@grpc/grpc-js` 1.14 adds its disconnect
 * listener in a promise continuation after a session's first SETTINGS, and a GOAWAY read in the same
 * chunk as that SETTINGS, handled before the continuation, left a closed session marked ready, whose
 * calls then retried without end (docs/node-runtime.md, "HTTP/2 and gRPC").
 */

/** The client connection preface (RFC 9113, section 3.4) that starts what a server reads. */
export const CLIENT_PREFACE_BYTES = 24;
export const FRAME_HEADER_BYTES = 9;

export class Http2FrameBoundaries {
  /** Preface bytes still to come (only a server reads one). */
  private prefaceLeft: number;
  /** Bytes of the current frame's payload still to come; -1 while its header is being read. */
  private payloadLeft = -1;
  /** The header bytes of the current frame read so far. */
  private readonly header = Buffer.alloc(FRAME_HEADER_BYTES);
  private headerRead = 0;

  constructor(side: "client" | "server") {
    this.prefaceLeft = side === "server" ? CLIENT_PREFACE_BYTES : 0;
  }

  /**
   * Cuts `chunk` after the preface and after every whole frame; a frame that goes on in the next
   * chunk is the last part. A corrupted length only moves the cuts: the session sees the same bytes.
   */
  split(chunk: Buffer): Buffer[] {
    const parts: Buffer[] = [];
    let start = 0;
    let at = 0;
    const cut = (): void => {
      if (at > start) parts.push(chunk.subarray(start, at));
      start = at;
    };
    while (at < chunk.length) {
      if (this.prefaceLeft > 0) {
        const n = Math.min(this.prefaceLeft, chunk.length - at);
        at += n;
        this.prefaceLeft -= n;
        if (this.prefaceLeft === 0) cut();
      } else if (this.payloadLeft < 0) {
        const n = Math.min(FRAME_HEADER_BYTES - this.headerRead, chunk.length - at);
        chunk.copy(this.header, this.headerRead, at, at + n);
        this.headerRead += n;
        at += n;
        if (this.headerRead === FRAME_HEADER_BYTES) {
          this.headerRead = 0;
          this.payloadLeft = this.header.readUIntBE(0, 3);
          if (this.payloadLeft === 0) {
            this.payloadLeft = -1;
            cut();
          }
        }
      } else {
        const n = Math.min(this.payloadLeft, chunk.length - at);
        at += n;
        this.payloadLeft -= n;
        if (this.payloadLeft === 0) {
          this.payloadLeft = -1;
          cut();
        }
      }
    }
    cut();
    return parts;
  }
}
