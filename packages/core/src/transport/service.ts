/**
 * Services: a TypeScript object type whose methods take one request and resolve to one reply,
 * declared once with `defineService` and shared by server and client.
 *
 *   interface Counter { add(req: { by: number }): Promise<{ total: number }> }
 *   const CounterService = defineService<Counter>("counter", { add: true });
 *
 * The method table (`{ add: true }`) must name every method of the type, so the compiler catches
 * a method left out. A method's wire identity is the CRC-32C of `"<service>.<method>"`: it
 * depends on names only, so reordering, adding or removing other methods never changes it;
 * renaming a method (or the service) does, and is a wire-incompatible change.
 */
import { InvalidConfiguration } from "../errors.ts";
import { crc32c } from "./crc32c.ts";
import { jsonCodec, type Codec } from "./codec.ts";
import { serviceToken, type Token } from "./token.ts";

/** What a service type must look like: every member a one-argument method returning a promise. */
export type ServiceShape<S = Record<string, unknown>> = { [K in keyof S]: (request: never) => Promise<unknown> };

export type RequestOf<F> = F extends (request: infer Q) => Promise<unknown> ? Q : never;
export type ReplyOf<F> = F extends (request: never) => Promise<infer A> ? A : never;

export interface MethodDefinition {
  readonly name: string;
  /** CRC-32C of `"<service>.<method>"` (UTF-8). */
  readonly id: number;
}

export interface ServiceDefinition<S extends ServiceShape<S>> {
  readonly name: string;
  readonly codec: Codec;
  /** The endpoint token the service is served at by default (derived from its name). */
  readonly token: Token;
  readonly methods: ReadonlyMap<keyof S & string, MethodDefinition>;
  readonly methodsById: ReadonlyMap<number, MethodDefinition>;
  /** Phantom: carries `S` for type inference only. */
  readonly shape?: S;
}

export interface ServiceOptions {
  /** Body encoding for requests and replies. Default `jsonCodec`. */
  readonly codec?: Codec;
}

const encoder = new TextEncoder();

/** The wire id of `method` in service `serviceName`. */
export function methodId(serviceName: string, method: string): number {
  return crc32c(encoder.encode(`${serviceName}.${method}`));
}

export function defineService<S extends ServiceShape<S>>(
  name: string,
  methods: { readonly [K in keyof S]-?: true },
  options: ServiceOptions = {},
): ServiceDefinition<S> {
  if (typeof name !== "string" || name.length === 0) {
    const got = JSON.stringify(name);
    throw new InvalidConfiguration(`defineService(name, ...): name must be a non-empty string, got ${got}`);
  }
  const byName = new Map<keyof S & string, MethodDefinition>();
  const byId = new Map<number, MethodDefinition>();
  const names = Object.keys(methods).sort();
  if (names.length === 0) throw new InvalidConfiguration(`defineService("${name}", methods): list at least one method`);
  for (const method of names) {
    const definition = { name: method, id: methodId(name, method) };
    const clash = byId.get(definition.id);
    if (clash !== undefined) {
      const both = `"${clash.name}" and "${method}"`;
      throw new InvalidConfiguration(`service "${name}": methods ${both} hash to the same id; rename one`);
    }
    byName.set(method as keyof S & string, definition);
    byId.set(definition.id, definition);
  }
  const codec = options.codec ?? jsonCodec;
  return Object.freeze({ name, codec, token: serviceToken(name), methods: byName, methodsById: byId });
}

/** What a server's handler receives beside the request. */
export interface RequestContext {
  /** The address the request came from (the client's end of the connection). */
  readonly from: string;
  /** The service method's name. */
  readonly method: string;
}

/** The server side: one handler per method. Throw `BrokenPromise` to drop a request unanswered. */
export type ServiceImpl<S extends ServiceShape<S>> = {
  readonly [K in keyof S]: (request: RequestOf<S[K]>, context: RequestContext) => Promise<ReplyOf<S[K]>>;
};

export interface TryGetReplyOptions {
  /**
   * Stop waiting after this long. If the request was sent by then, the outcome is unknown and the
   * call rejects with `MaybeDelivered`; if not, with `ConnectionFailed`. Default: no limit (the
   * connection's failure, or the peer's ping timeout, ends the wait).
   */
  readonly timeoutMs?: number;
}

export interface GetReplyOptions {
  /** Give up after this long with `RequestTimeout`. Default 30,000 ms. */
  readonly timeoutMs?: number;
}

/**
 * One method seen from the client. Each delivery mode is its own call, so the choice is visible
 * where the request is made.
 */
export interface MethodStub<Q, A> {
  /** Fire and forget: queued once, unreliably; no reply, no error about delivery. */
  send(request: Q): void;
  /**
   * At most once: sent once; rejects with `MaybeDelivered` when the connection that carried it
   * breaks (or the wait times out) before the reply, and `ConnectionFailed` if it never left.
   */
  tryGetReply(request: Q, options?: TryGetReplyOptions): Promise<A>;
  /**
   * At least once: re-sent on every new connection until a reply comes or `timeoutMs` passes
   * (`RequestTimeout`). The server may run it more than once: the transport does not deduplicate,
   * so the method must be idempotent, or carry its own id for the server to deduplicate.
   */
  getReply(request: Q, options?: GetReplyOptions): Promise<A>;
  /**
   * At least once, like `getReply`, but with no timeout as long as the server's address is not
   * failed: gives up (`MaybeDelivered` if sent, else `ConnectionFailed`) once the failure monitor
   * has seen it failed for `failedForMs` without a break.
   */
  getReplyUnlessFailedFor(request: Q, failedForMs: number): Promise<A>;
}

export type ServiceStub<S extends ServiceShape<S>> = {
  readonly [K in keyof S]: MethodStub<RequestOf<S[K]>, ReplyOf<S[K]>>;
};
