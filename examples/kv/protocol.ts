/**
 * The replicas' service and the client's request helper, on the transport layer of
 * `@moonpool/core`: one resilient connection per replica, CRC-32C-checked frames (a corrupted
 * frame drops the connection instead of reaching a replica). A lost, refused, reset or late reply
 * is "no answer", which the quorum logic must tolerate anyway.
 */
import {
  ApplicationError,
  defineService,
  isAbortError,
  SerializationError,
  TransportError,
  type ServiceStub,
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

type RequestMessage<T extends Request["type"]> = Extract<Request, { readonly type: T }>;
type ReplyMessage<T extends Reply["type"]> = Extract<Reply, { readonly type: T }>;

/** A replica's service. `null` is no answer: the replica stopped answering after a failed append. */
export interface Kv {
  read(request: RequestMessage<"read">): Promise<ReplyMessage<"read"> | null>;
  write(request: RequestMessage<"write">): Promise<ReplyMessage<"written"> | null>;
}

export const KvService = defineService<Kv>("kv", { read: true, write: true });

/**
 * One request to a replica; `null` when there was no usable answer within `REQUEST_TIMEOUT_MS`.
 * Both are at least once (`getReply`: re-sent on a new connection until the timeout), which is
 * safe because both are idempotent: a read changes nothing, and a write carries its version, so a
 * second copy finds that version (or a newer one) already stored and changes nothing.
 */
export async function request(replica: ServiceStub<Kv>, message: Request): Promise<Reply | null> {
  const options = { timeoutMs: REQUEST_TIMEOUT_MS };
  try {
    return message.type === "read"
      ? await replica.read.getReply(message, options)
      : await replica.write.getReply(message, options);
  } catch (error) {
    // A handler that threw, or a message that did not encode, is a bug in this code: it surfaces.
    if (error instanceof ApplicationError || error instanceof SerializationError) throw error;
    if (error instanceof TransportError || isAbortError(error)) return null;
    throw error;
  }
}
