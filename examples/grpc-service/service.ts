/**
 * The service: a key-value store behind an unmodified `@grpc/grpc-js` server. The service
 * definition is hand-written with JSON serializers (no .proto compile step). Every answer carries
 * the server's boot id (`crypto.randomUUID()` at start), so a client can tell a restarted server,
 * whose memory is empty, from the one that acknowledged its write.
 */
import { randomUUID } from "node:crypto";
import * as grpc from "@grpc/grpc-js";

export interface PutRequest {
  readonly key: string;
  readonly value: string;
}
export interface GetRequest {
  readonly key: string;
}
export interface Reply {
  readonly boot: string;
  readonly value: string | null;
}

/** FNV-1a over the JSON text: the simulated network flips bits, and HTTP/2 frames carry no checksum. */
function checksum(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const serialize = (value: unknown): Buffer => {
  const body = JSON.stringify(value);
  return Buffer.from(JSON.stringify({ body, sum: checksum(body) }));
};
/** A corrupted message throws here, which grpc-js turns into an INTERNAL status for that call. */
const deserialize = (bytes: Buffer): any => {
  const { body, sum } = JSON.parse(bytes.toString("utf8")) as { body: string; sum: number };
  if (checksum(body) !== sum) throw new Error("message checksum mismatch");
  return JSON.parse(body);
};

function unary(path: string) {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: serialize,
    requestDeserialize: deserialize,
    responseSerialize: serialize,
    responseDeserialize: deserialize,
  } as const;
}

export const KvService = { put: unary("/kv.Kv/Put"), get: unary("/kv.Kv/Get") } satisfies grpc.ServiceDefinition;

export interface ServiceOptions {
  /** The planted bug: reads are served from a cache that a write does not invalidate. */
  readonly staleCache?: boolean;
}

/** A server with the store's handlers; `bindAsync` it on a port. */
export function createKvServer(options: ServiceOptions = {}): grpc.Server {
  const boot = randomUUID();
  const store = new Map<string, string>();
  const cache = new Map<string, string | null>();
  const server = new grpc.Server();
  server.addService(KvService, {
    put: (call: grpc.ServerUnaryCall<PutRequest, Reply>, callback: grpc.sendUnaryData<Reply>) => {
      store.set(call.request.key, call.request.value);
      if (!options.staleCache) cache.delete(call.request.key);
      callback(null, { boot, value: call.request.value });
    },
    get: (call: grpc.ServerUnaryCall<GetRequest, Reply>, callback: grpc.sendUnaryData<Reply>) => {
      const key = call.request.key;
      if (!cache.has(key)) cache.set(key, store.get(key) ?? null);
      callback(null, { boot, value: cache.get(key)! });
    },
  });
  return server;
}

/** `server.bindAsync` as a promise. */
export function bind(server: grpc.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(`0.0.0.0:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
}
