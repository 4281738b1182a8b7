/** CRC-32C, the frame format and its streaming decoder, tokens, and stable method identity. */
import { describe, expect, it } from "vitest";
import {
  ChecksumMismatch,
  crc32c,
  defineService,
  encodeWireFrame,
  FrameTooLarge,
  InvalidConfiguration,
  isWellKnown,
  jsonCodec,
  LAN_PEER_CONFIG,
  methodId,
  peerConfig,
  PING_TOKEN,
  REPLY_TOKEN,
  serviceToken,
  WAN_PEER_CONFIG,
  WIRE_HEADER_BYTES,
  WireDecoder,
  wellKnownToken,
} from "@moonpool/core";

const utf8 = (text: string) => new TextEncoder().encode(text);
const TOKEN = serviceToken("wire-test");

describe("crc32c", () => {
  it("matches the standard check values", () => {
    expect(crc32c(utf8("123456789"))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa); // 32 zero bytes (RFC 3720 B.4)
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
  });
});

describe("wire frames", () => {
  it("lays out [length][crc32c(token‖payload)][token][payload] little-endian", () => {
    const payload = utf8("hello");
    const frame = encodeWireFrame(TOKEN, payload);
    expect(frame.length).toBe(WIRE_HEADER_BYTES + 5);
    const view = new DataView(frame.buffer);
    expect(view.getUint32(0, true)).toBe(5);
    expect(view.getUint32(4, true)).toBe(crc32c(frame.subarray(8)));
    expect(Buffer.from(frame.subarray(8, 24)).toString("hex")).toBe(TOKEN);
  });

  it("decodes frames split at every byte boundary and several frames in one chunk", () => {
    const frames = [utf8("a"), new Uint8Array(0), utf8("x".repeat(300))].map((p) => encodeWireFrame(TOKEN, p));
    const stream = Uint8Array.from(frames.flatMap((f) => [...f]));
    for (const step of [1, 2, 7, 24, 25, stream.length]) {
      const decoder = new WireDecoder();
      const out: string[] = [];
      for (let at = 0; at < stream.length; at += step) {
        decoder.push(stream.subarray(at, at + step));
        for (let f = decoder.next(); f !== undefined; f = decoder.next()) {
          expect(f.token).toBe(TOKEN);
          out.push(new TextDecoder().decode(f.payload));
        }
      }
      expect(out).toEqual(["a", "", "x".repeat(300)]);
      expect(decoder.bufferedBytes).toBe(0);
    }
  });

  it("rejects a flipped bit with ChecksumMismatch and an oversized length with FrameTooLarge", () => {
    const frame = encodeWireFrame(TOKEN, utf8("payload"));
    for (const bit of [8 * 8, 8 * 20 + 3, 8 * (frame.length - 1)]) {
      const bad = frame.slice();
      bad[bit >> 3]! ^= 1 << (bit & 7);
      const decoder = new WireDecoder();
      decoder.push(bad);
      expect(() => decoder.next()).toThrow(ChecksumMismatch);
    }
    const big = new WireDecoder(16);
    big.push(encodeWireFrame(TOKEN, new Uint8Array(17)).subarray(0, WIRE_HEADER_BYTES));
    expect(() => big.next()).toThrow(FrameTooLarge);
    expect(() => encodeWireFrame(TOKEN, new Uint8Array(17), 16)).toThrow(/exceeds maxPayloadBytes 16/);
    // Within bounds it waits for the rest instead.
    const ok = new WireDecoder(16);
    ok.push(encodeWireFrame(TOKEN, new Uint8Array(16)).subarray(0, 30));
    expect(ok.next()).toBeUndefined();
  });
});

describe("tokens and services", () => {
  it("reserves a well-known range and derives service tokens from names", () => {
    expect(isWellKnown(PING_TOKEN) && isWellKnown(REPLY_TOKEN)).toBe(true);
    expect(wellKnownToken(2)).toBe("ffffffffffffffff0000000000000002");
    expect(() => wellKnownToken(64)).toThrow(RangeError);
    expect(serviceToken("a")).toMatch(/^[0-9a-f]{32}$/);
    expect(serviceToken("a")).toBe(serviceToken("a"));
    expect(serviceToken("a")).not.toBe(serviceToken("b"));
    expect(isWellKnown(serviceToken("a"))).toBe(false);
  });

  it("method ids depend on names only: reordering the method table changes nothing", () => {
    interface Kv {
      get(key: string): Promise<string | null>;
      put(entry: { key: string; value: string }): Promise<void>;
    }
    const one = defineService<Kv>("kv", { get: true, put: true });
    const two = defineService<Kv>("kv", { put: true, get: true });
    expect([...one.methods.values()]).toEqual([...two.methods.values()]);
    expect(one.methods.get("get")!.id).toBe(methodId("kv", "get"));
    expect(one.methods.get("get")!.id).toBe(crc32c(utf8("kv.get")));
    expect(one.codec).toBe(jsonCodec);
    expect(() => defineService<Kv>("", { get: true, put: true })).toThrow(InvalidConfiguration);
  });

  it("the JSON codec round-trips values and undefined", () => {
    for (const value of [undefined, null, 0, "x", { a: [1, { b: true }] }]) {
      expect(jsonCodec.decode(jsonCodec.encode(value))).toEqual(value);
    }
    expect(() => jsonCodec.decode(utf8("{"))).toThrow(SyntaxError);
  });

  it("peer presets and checked overrides", () => {
    expect(LAN_PEER_CONFIG.maxBackoffMs).toBeLessThan(WAN_PEER_CONFIG.maxBackoffMs);
    expect(peerConfig({ maxQueueSize: 3 }).maxQueueSize).toBe(3);
    expect(peerConfig({}, WAN_PEER_CONFIG)).toEqual(WAN_PEER_CONFIG);
    const inverted = () => peerConfig({ maxBackoffMs: 1, initialBackoffMs: 5 });
    expect(inverted).toThrow(/maxBackoffMs \(1\) must be >= initialBackoffMs/);
    expect(() => peerConfig({ maxQueueSize: 0 })).toThrow(InvalidConfiguration);
  });
});
