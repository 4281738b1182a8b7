import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_FRAME_BYTES,
  encodeFrame,
  FRAME_HEADER_BYTES,
  FramedConnection,
  IoError,
  type Connection,
} from "@moonpool/core";

/** An in-memory `Connection` whose reads replay a script of chunks, then end of stream. */
class ScriptedConnection implements Connection {
  readonly localAddr = "10.0.0.1:50000";
  readonly peerAddr = "10.0.1.1:4500";
  readonly written: Uint8Array[] = [];
  closed = false;
  reads = 0;

  constructor(private readonly chunks: Uint8Array[]) {}

  async read(): Promise<Uint8Array | null> {
    this.reads++;
    return this.chunks.shift() ?? null;
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (this.closed) throw new IoError("EPIPE", "write after close");
    this.written.push(new Uint8Array(bytes));
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Cuts `bytes` into consecutive chunks of the given sizes (cycled). */
function split(bytes: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; offset < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    chunks.push(bytes.slice(offset, offset + size));
    offset += size;
  }
  return chunks;
}

/** A small deterministic generator (xorshift32) for chunk sizes and payloads. */
function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

function samplePayloads(): Uint8Array[] {
  const next = xorshift(7);
  const big = new Uint8Array(3000);
  for (let i = 0; i < big.length; i++) big[i] = next() & 0xff;
  return [text("hello"), new Uint8Array(0), text("a"), big, text("x".repeat(255)), text("last frame")];
}

async function recvAll(framed: FramedConnection): Promise<Uint8Array[]> {
  const frames: Uint8Array[] = [];
  for (;;) {
    const frame = await framed.recv();
    if (frame === null) return frames;
    frames.push(frame);
  }
}

describe("encodeFrame", () => {
  it("writes a 4-byte little-endian length, then the payload", () => {
    const frame = encodeFrame(text("abc"));
    expect(FRAME_HEADER_BYTES).toBe(4);
    expect([...frame]).toEqual([3, 0, 0, 0, 97, 98, 99]);
    expect([...encodeFrame(new Uint8Array(0x0102))].slice(0, 4)).toEqual([2, 1, 0, 0]);
  });
});

describe("FramedConnection", () => {
  it("round-trips frames sent through send() and read back with recv()", async () => {
    const payloads = samplePayloads();
    const sender = new ScriptedConnection([]);
    const out = new FramedConnection(sender);
    for (const payload of payloads) await out.send(payload);
    expect(sender.written).toHaveLength(payloads.length);

    const receiver = new FramedConnection(new ScriptedConnection([concat(sender.written)]));
    expect(await recvAll(receiver)).toEqual(payloads);
  });

  it("reassembles frames split at every chunk size from 1 to 9 bytes", async () => {
    const payloads = samplePayloads();
    const stream = concat(payloads.map(encodeFrame));
    for (let size = 1; size <= 9; size++) {
      const framed = new FramedConnection(new ScriptedConnection(split(stream, [size])));
      expect(await recvAll(framed), `chunk size ${size}`).toEqual(payloads);
    }
  });

  it("reassembles frames split at arbitrary (seeded) boundaries, including empty chunks", async () => {
    const payloads = samplePayloads();
    const stream = concat(payloads.map(encodeFrame));
    for (let seed = 1; seed <= 50; seed++) {
      const next = xorshift(seed);
      const sizes = Array.from({ length: 64 }, () => next() % 40); // 0 = an empty chunk
      sizes.push(1); // guarantees progress even if every drawn size were 0
      const framed = new FramedConnection(new ScriptedConnection(split(stream, sizes)));
      expect(await recvAll(framed), `seed ${seed}`).toEqual(payloads);
    }
  });

  it("copies each received byte about once, however many reads a frame takes (no quadratic re-buffering)", async () => {
    const payload = new Uint8Array(64 * 1024).map((_, i) => i & 0xff);
    const chunks = split(encodeFrame(payload), [64]); // 1,025 reads for one frame
    const realSet = Uint8Array.prototype.set;
    let copiedBytes = 0;
    // Count the bytes copied through TypedArray.set (how every buffer copy in framing.ts is made).
    Uint8Array.prototype.set = function countingSet(this: Uint8Array, source: ArrayLike<number>, offset?: number) {
      copiedBytes += source.length;
      return realSet.call(this, source, offset);
    } as typeof realSet;
    let frame: Uint8Array | null;
    try {
      frame = await new FramedConnection(new ScriptedConnection(chunks)).recv();
    } finally {
      Uint8Array.prototype.set = realSet;
    }
    expect(frame).toEqual(payload);
    // Re-buffering the whole prefix on every read would copy about 32 MiB here.
    expect(copiedBytes).toBeLessThan(2 * payload.length);
  });

  it("returns several frames delivered in one chunk without reading again", async () => {
    const conn = new ScriptedConnection([concat([encodeFrame(text("one")), encodeFrame(text("two"))])]);
    const framed = new FramedConnection(conn);
    expect(await framed.recv()).toEqual(text("one"));
    expect(await framed.recv()).toEqual(text("two"));
    expect(conn.reads).toBe(1);
    expect(await framed.recv()).toBeNull();
    expect(await framed.recv()).toBeNull();
  });

  it("rejects with EPROTO when the stream ends inside a payload", async () => {
    const frame = encodeFrame(text("truncated payload"));
    const framed = new FramedConnection(new ScriptedConnection([encodeFrame(text("ok")), frame.slice(0, 10)]));
    expect(await framed.recv()).toEqual(text("ok"));
    await expect(framed.recv()).rejects.toMatchObject({ name: "IoError", code: "EPROTO" });
  });

  it("rejects with EPROTO when the stream ends inside a header", async () => {
    const framed = new FramedConnection(new ScriptedConnection([new Uint8Array([5, 0])]));
    const error = await framed.recv().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IoError);
    expect((error as IoError).code).toBe("EPROTO");
  });

  it("rejects an incoming length above maxFrameBytes with EMSGSIZE before buffering it", async () => {
    const header = new Uint8Array(4);
    new DataView(header.buffer).setUint32(0, 0xffff_fff0, true);
    const conn = new ScriptedConnection([header, new Uint8Array(100)]);
    const framed = new FramedConnection(conn);
    await expect(framed.recv()).rejects.toMatchObject({ name: "IoError", code: "EMSGSIZE" });
    expect(conn.reads).toBe(1);

    const small = new FramedConnection(new ScriptedConnection([encodeFrame(new Uint8Array(17))]), 16);
    await expect(small.recv()).rejects.toMatchObject({ code: "EMSGSIZE" });
  });

  it("accepts a frame of exactly maxFrameBytes", async () => {
    const payload = new Uint8Array(16).fill(9);
    const framed = new FramedConnection(new ScriptedConnection(split(encodeFrame(payload), [3])), 16);
    expect(await framed.recv()).toEqual(payload);
  });

  it("refuses to send a payload above maxFrameBytes with EMSGSIZE and writes nothing", async () => {
    const conn = new ScriptedConnection([]);
    const framed = new FramedConnection(conn, 8);
    await expect(framed.send(new Uint8Array(9))).rejects.toMatchObject({ code: "EMSGSIZE" });
    expect(conn.written).toHaveLength(0);
    expect(DEFAULT_MAX_FRAME_BYTES).toBe(1 << 20);
  });

  it("close() closes the underlying connection", async () => {
    const conn = new ScriptedConnection([]);
    await new FramedConnection(conn).close();
    expect(conn.closed).toBe(true);
  });
});

describe("checksummed JSON messages", () => {
  it("round-trip, and a single flipped bit anywhere makes the frame a lost message", async () => {
    const { encodeChecksummedJson, decodeChecksummedJson, fnv1a32 } = await import("../src/framing.ts");
    const message = { type: "vote", term: 7, granted: true };
    const frame = encodeChecksummedJson(message);
    expect(decodeChecksummedJson(frame)).toEqual(message);
    for (let bit = 0; bit < frame.length * 8; bit++) {
      const corrupted = frame.slice();
      corrupted[bit >> 3]! ^= 1 << (bit & 7);
      expect(decodeChecksummedJson(corrupted)).toBeNull();
    }
    expect(decodeChecksummedJson(new Uint8Array(3))).toBeNull();
    expect(fnv1a32(new Uint8Array(0))).toBe(0x811c9dc5);
  });
});
