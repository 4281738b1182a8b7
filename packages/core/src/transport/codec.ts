/**
 * How request and reply bodies become bytes. JSON by default; pass another `Codec` to
 * `defineService` for a binary format. A codec must round-trip every value its service sends.
 */
export interface Codec {
  readonly name: string;
  encode(value: unknown): Uint8Array;
  decode(bytes: Uint8Array): unknown;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** JSON text in UTF-8; `undefined` travels as zero bytes. */
export const jsonCodec: Codec = Object.freeze({
  name: "json",
  encode(value: unknown): Uint8Array {
    if (value === undefined) return new Uint8Array(0);
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`a ${typeof value} cannot be encoded as JSON`);
    return encoder.encode(text);
  },
  decode(bytes: Uint8Array): unknown {
    return bytes.length === 0 ? undefined : JSON.parse(decoder.decode(bytes));
  },
});
