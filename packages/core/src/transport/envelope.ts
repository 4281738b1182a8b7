/**
 * What a frame's payload holds, independent of the service codec (so a server can refuse a
 * request it cannot route without decoding its body). Integers little-endian:
 *
 *   one-way   [0][method id u32][body]
 *   request   [1][request id u32][method id u32][body]         (to the service's token)
 *   reply     [2][request id u32][body]                        (to REPLY_TOKEN)
 *   error     [3][request id u32][error code u8][UTF-8 message] (to REPLY_TOKEN)
 */
export const Kind = { OneWay: 0, Request: 1, Reply: 2, Error: 3 } as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

export const ErrorCode = { BrokenPromise: 1, EndpointNotFound: 2, Serialization: 3, Application: 4 } as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export type Envelope =
  | { readonly kind: typeof Kind.OneWay; readonly methodId: number; readonly body: Uint8Array }
  | {
      readonly kind: typeof Kind.Request;
      readonly requestId: number;
      readonly methodId: number;
      readonly body: Uint8Array;
    }
  | { readonly kind: typeof Kind.Reply; readonly requestId: number; readonly body: Uint8Array }
  | {
      readonly kind: typeof Kind.Error;
      readonly requestId: number;
      readonly code: ErrorCode;
      readonly message: string;
    };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function withHeader(headerBytes: number, body: Uint8Array): { out: Uint8Array; view: DataView } {
  const out = new Uint8Array(headerBytes + body.length);
  out.set(body, headerBytes);
  return { out, view: new DataView(out.buffer) };
}

export function encodeOneWay(methodId: number, body: Uint8Array): Uint8Array {
  const { out, view } = withHeader(5, body);
  out[0] = Kind.OneWay;
  view.setUint32(1, methodId, true);
  return out;
}

export function encodeRequest(requestId: number, methodId: number, body: Uint8Array): Uint8Array {
  const { out, view } = withHeader(9, body);
  out[0] = Kind.Request;
  view.setUint32(1, requestId, true);
  view.setUint32(5, methodId, true);
  return out;
}

export function encodeReply(requestId: number, body: Uint8Array): Uint8Array {
  const { out, view } = withHeader(5, body);
  out[0] = Kind.Reply;
  view.setUint32(1, requestId, true);
  return out;
}

export function encodeError(requestId: number, code: ErrorCode, message: string): Uint8Array {
  const { out, view } = withHeader(6, encoder.encode(message));
  out[0] = Kind.Error;
  view.setUint32(1, requestId, true);
  out[5] = code;
  return out;
}

/** The envelope of a payload, or `undefined` if it is malformed. */
export function decodeEnvelope(payload: Uint8Array): Envelope | undefined {
  if (payload.length < 5) return undefined;
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const kind = payload[0];
  const first = view.getUint32(1, true);
  switch (kind) {
    case Kind.OneWay:
      return { kind, methodId: first, body: payload.subarray(5) };
    case Kind.Request:
      if (payload.length < 9) return undefined;
      return { kind, requestId: first, methodId: view.getUint32(5, true), body: payload.subarray(9) };
    case Kind.Reply:
      return { kind, requestId: first, body: payload.subarray(5) };
    case Kind.Error: {
      if (payload.length < 6) return undefined;
      const code = payload[5]!;
      if (code < ErrorCode.BrokenPromise || code > ErrorCode.Application) return undefined;
      return { kind, requestId: first, code: code as ErrorCode, message: decoder.decode(payload.subarray(6)) };
    }
    default:
      return undefined;
  }
}
