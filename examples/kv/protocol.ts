/**
 * The replicas' wire protocol and the client's request helper. Every request is one short TCP
 * exchange (connect, one checksummed frame each way, close): a lost, refused, reset, corrupted or
 * late reply is "no answer", which the quorum logic must tolerate anyway.
 */
import {
  decodeChecksummedJson,
  encodeChecksummedJson,
  FramedConnection,
  IoError,
  isAbortError,
  TimeoutError,
  type Providers,
} from "@moonpool/core";

export const KV_PORT = 7300;
/** Shorter than a client's patience: a silent replica must not stall an operation for long. */
export const REQUEST_TIMEOUT_MS = 400;

/** A version: a counter, ties broken by the writer's id, compared lexicographically. */
export type Timestamp = readonly [counter: number, writer: string];

export const ZERO_TS: Timestamp = [0, ""];

export function compareTs(a: Timestamp, b: Timestamp): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

export type Request =
  | { readonly type: "read"; readonly key: string }
  | { readonly type: "write"; readonly key: string; readonly ts: Timestamp; readonly value: string | null };

export type Reply =
  | { readonly type: "read"; readonly ts: Timestamp; readonly value: string | null }
  | { readonly type: "written" };

/** One exchange with `addr`; `null` when there was no usable answer. */
export async function request(io: Providers, addr: string, message: Request): Promise<Reply | null> {
  const exchange = async (): Promise<Reply | null> => {
    const conn = new FramedConnection(await io.network.connect(addr));
    try {
      await conn.send(encodeChecksummedJson(message));
      const frame = await conn.recv();
      return frame === null ? null : decodeChecksummedJson<Reply>(frame);
    } finally {
      await conn.close().catch(() => undefined);
    }
  };
  try {
    return await io.time.timeout(REQUEST_TIMEOUT_MS, exchange());
  } catch (error) {
    if (error instanceof IoError || error instanceof TimeoutError || isAbortError(error)) return null;
    throw error;
  }
}
