/**
 * A process's transport: its listener, one `Peer` per remote address, the endpoints it serves,
 * and the requests it waits on. Built only on the provider interfaces, so the same code runs on
 * `node:net` and in the simulator.
 *
 *   const transport = new Transport(ctx);
 *   await transport.listen(`${ctx.myIp}:7000`);
 *   transport.serve(CounterService, { add: async ({ by }) => ({ total: (total += by) }) });
 *   const counter = transport.stub(CounterService, "10.0.0.2:7000");
 *   const { total } = await counter.add.getReply({ by: 1 });
 *
 * A reply travels back over the connection its request came on, so a client needs no listener.
 * Call `close()` when done: until then peers keep reconnecting and pinging (and, in production,
 * keep the Node process alive).
 */
import { InvalidConfiguration, IoError, isAbortError, TimeoutError } from "../errors.ts";
import type { Listener, Providers } from "../providers.ts";
import type { Tracer } from "../trace.ts";
import { peerConfig, type PeerConfig } from "./config.ts";
import { decodeEnvelope, encodeError, encodeOneWay, encodeReply, encodeRequest, ErrorCode, Kind } from "./envelope.ts";
import {
  ApplicationError,
  BrokenPromise,
  ConnectionFailed,
  EndpointNotFound,
  MaybeDelivered,
  RequestTimeout,
  SerializationError,
  TransportError,
} from "./errors.ts";
import { FailureMonitor } from "./failure-monitor.ts";
import { Peer, type OutgoingMessage, type PeerHost } from "./peer.ts";
import type {
  MethodDefinition,
  MethodStub,
  RequestContext,
  ServiceDefinition,
  ServiceImpl,
  ServiceShape,
  ServiceStub,
} from "./service.ts";
import { formatEndpoint, isToken, randomToken, REPLY_TOKEN, type Endpoint, type Token } from "./token.ts";
import { encodeWireFrame, type WireFrame } from "./wire.ts";

export const DEFAULT_GET_REPLY_TIMEOUT_MS = 30_000;

export interface TransportOptions {
  /** Peer settings: a preset (`LAN_PEER_CONFIG`, `WAN_PEER_CONFIG`) or overrides of the LAN one. */
  readonly peer?: Partial<PeerConfig>;
  /** Share one monitor between transports of a process; default a new one. */
  readonly monitor?: FailureMonitor;
}

// Any service: the handlers are checked where `serve` is called, with the concrete type.
type AnyService = ServiceDefinition<any>;

type Handler = (body: Uint8Array, context: RequestContext) => Promise<Uint8Array>;

interface ServedEndpoint {
  readonly service: AnyService;
  readonly handlers: ReadonlyMap<number, { readonly method: MethodDefinition; readonly handle: Handler }>;
}

interface PendingReply {
  /** Only this peer's connection carries the answer: a reply id arriving from elsewhere is not ours. */
  readonly peer: Peer;
  settle(outcome: { ok: true; body: Uint8Array } | { ok: false; error: Error }): void;
}

type Mode =
  | { readonly kind: "try"; readonly timeoutMs?: number }
  | { readonly kind: "get"; readonly timeoutMs: number }
  | { readonly kind: "unlessFailed"; readonly failedForMs: number };

function fail(message: string): never {
  throw new InvalidConfiguration(message);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class Transport implements PeerHost {
  readonly monitor: FailureMonitor;
  readonly config: PeerConfig;
  private readonly peers = new Map<string, Peer>();
  private readonly incomingPeers = new Set<Peer>();
  private readonly endpoints = new Map<Token, ServedEndpoint>();
  private readonly pending = new Map<number, PendingReply>();
  /** Requests being handled here, answered `BrokenPromise` if the transport closes first. */
  private readonly inFlight = new Set<{ peer: Peer; requestId: number }>();
  private listener: Listener | undefined;
  private listenAddress: string | undefined;
  private nextRequestId = 1;
  private closed = false;

  constructor(
    readonly io: Providers & { readonly trace?: Tracer },
    options: TransportOptions = {},
  ) {
    this.config = peerConfig(options.peer ?? {});
    this.monitor = options.monitor ?? new FailureMonitor();
  }

  /** The address this transport listens on, once `listen` resolved. */
  get address(): string | undefined {
    return this.listenAddress;
  }

  /** Binds `address` (`ip:port`) and accepts connections in the background: each becomes an incoming peer. */
  async listen(address: string): Promise<void> {
    if (this.listener !== undefined) {
      fail(`transport already listens on ${this.listenAddress}; one listener per transport`);
    }
    this.listener = await this.io.network.bind(address);
    // The listener's own address: with port 0 the system picks the port.
    this.listenAddress = this.listener.localAddr;
    const listener = this.listener;
    this.io.task.spawn(`transport: accept ${address}`, async () => {
      try {
        for (;;) {
          const connection = await listener.accept();
          if (this.closed) {
            await connection.close().catch(() => undefined);
            continue;
          }
          const peer = new Peer(this, connection.peerAddr, this.config, connection);
          this.incomingPeers.add(peer);
          peer.onDisconnect(() => this.incomingPeers.delete(peer));
        }
      } catch (error) {
        if (!(error instanceof IoError || isAbortError(error))) throw error;
      }
    });
  }

  /**
   * Serves `service` with `impl` at `token` (default: the service's own token). Returns the
   * endpoint clients call (needs `listen` first, for the address).
   */
  serve<S extends ServiceShape<S>>(
    service: ServiceDefinition<S>,
    impl: ServiceImpl<S>,
    options: { token?: Token } = {},
  ): Endpoint {
    const token = options.token ?? service.token;
    if (!isToken(token)) fail(`serve(): token must be 32 lowercase hex digits, got ${JSON.stringify(token)}`);
    const taken = this.endpoints.get(token);
    if (taken !== undefined) fail(`serve(): token ${token} already serves "${taken.service.name}"`);
    const handlers = new Map<number, { method: MethodDefinition; handle: Handler }>();
    for (const [name, method] of service.methods) {
      const fn = impl[name] as ((request: unknown, context: RequestContext) => Promise<unknown>) | undefined;
      if (typeof fn !== "function") fail(`serve("${service.name}"): the implementation has no method "${name}"`);
      handlers.set(method.id, {
        method,
        handle: async (body, context) => {
          let request: unknown;
          try {
            request = service.codec.decode(body);
          } catch (error) {
            throw new SerializationError(`cannot decode the request of ${service.name}.${name}: ${describe(error)}`);
          }
          const reply = await fn.call(impl, request, context);
          try {
            return service.codec.encode(reply);
          } catch (error) {
            throw new SerializationError(`cannot encode the reply of ${service.name}.${name}: ${describe(error)}`);
          }
        },
      });
    }
    this.endpoints.set(token, { service: service as unknown as AnyService, handlers });
    return { address: this.listenAddress ?? "", token };
  }

  /** Stops serving the endpoint at `token`: later requests to it get `EndpointNotFound`. */
  unserve(token: Token): void {
    this.endpoints.delete(token);
  }

  /** A fresh random token, for a second instance of a service in one process. */
  newToken(): Token {
    return randomToken(this.io.random);
  }

  /** A typed client of `service` at `target`: an `ip:port` (the service's own token) or an endpoint. */
  stub<S extends ServiceShape<S>>(service: ServiceDefinition<S>, target: string | Endpoint): ServiceStub<S> {
    const endpoint: Endpoint = typeof target === "string" ? { address: target, token: service.token } : target;
    if (typeof endpoint.address !== "string" || endpoint.address.length === 0) {
      fail("stub(): the target needs an address 'ip:port'");
    }
    if (!isToken(endpoint.token)) {
      fail(`stub(): token must be 32 lowercase hex digits, got ${JSON.stringify(endpoint.token)}`);
    }
    const any = service as unknown as AnyService;
    const stub: Record<string, MethodStub<unknown, unknown>> = {};
    for (const [name, method] of service.methods) {
      const call = (request: unknown, mode: Mode) => this.call(any, endpoint, method, request, mode);
      stub[name] = {
        send: (request) => this.sendOneWay(any, endpoint, method, request),
        tryGetReply: (request, options = {}) =>
          call(request, { kind: "try", timeoutMs: checkTimeout(options.timeoutMs, "tryGetReply") }),
        getReply: (request, options = {}) => {
          const timeoutMs = checkTimeout(options.timeoutMs, "getReply") ?? DEFAULT_GET_REPLY_TIMEOUT_MS;
          return call(request, { kind: "get", timeoutMs });
        },
        getReplyUnlessFailedFor: (request, failedForMs) => {
          const what = "getReplyUnlessFailedFor(request, failedForMs)";
          const ms = checkTimeout(failedForMs, what) ?? fail(`${what}: failedForMs is required`);
          return call(request, { kind: "unlessFailed", failedForMs: ms });
        },
      };
    }
    return Object.freeze(stub) as ServiceStub<S>;
  }

  /** The outgoing peer for `address` (created, and connecting in the background, on first use). */
  peer(address: string): Peer {
    let peer = this.peers.get(address);
    if (peer === undefined) {
      if (this.closed) throw new ConnectionFailed(address, "the transport is closed");
      peer = new Peer(this, address, this.config);
      this.peers.set(address, peer);
    }
    return peer;
  }

  /**
   * Stops everything: requests being handled here are answered `BrokenPromise` (where the
   * connection still works), waiting callers get `ConnectionFailed`/`MaybeDelivered`, peers close.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const { peer, requestId } of this.inFlight) {
      this.sendError(peer, requestId, ErrorCode.BrokenPromise, "the server shut down");
    }
    this.inFlight.clear();
    // Give the writers one turn to flush those answers before the connections close.
    await this.io.task.yieldNow();
    for (const peer of [...this.peers.values(), ...this.incomingPeers]) peer.close("the transport closed");
    this.peers.clear();
    this.incomingPeers.clear();
    const listener = this.listener;
    this.listener = undefined;
    if (listener !== undefined) await listener.close().catch(() => undefined);
  }

  event(name: string, fields: Record<string, string | number>): void {
    this.io.trace?.debug(name, fields);
  }

  deliver(frame: WireFrame, peer: Peer): void {
    const envelope = decodeEnvelope(frame.payload);
    if (envelope === undefined) {
      this.event("transport_malformed_message", { peer: peer.address, token: frame.token });
      return;
    }
    switch (envelope.kind) {
      case Kind.Reply:
      case Kind.Error: {
        if (frame.token !== REPLY_TOKEN) return;
        const pending = this.pending.get(envelope.requestId);
        if (pending === undefined || pending.peer !== peer) return; // a late answer to a request that gave up
        if (envelope.kind === Kind.Reply) pending.settle({ ok: true, body: envelope.body });
        else pending.settle({ ok: false, error: errorFromCode(envelope.code, envelope.message, peer.address) });
        return;
      }
      case Kind.Request:
      case Kind.OneWay: {
        const served = this.endpoints.get(frame.token);
        const handler = served?.handlers.get(envelope.methodId);
        const requestId = envelope.kind === Kind.Request ? envelope.requestId : undefined;
        if (handler === undefined) {
          const detail =
            served === undefined ? "" : ` (service "${served.service.name}" has no method id ${envelope.methodId})`;
          this.event("transport_endpoint_not_found", { peer: peer.address, token: frame.token });
          if (requestId !== undefined) this.sendError(peer, requestId, ErrorCode.EndpointNotFound, detail);
          return;
        }
        // Names the request a read carried, for the replay's story (debug: not in an info-level trace).
        this.event("transport_serve", {
          peer: peer.address,
          method: `${served!.service.name}.${handler.method.name}`,
          requestId: requestId ?? -1,
        });
        void this.handle(handler, envelope.body, peer, requestId);
        return;
      }
    }
  }

  private async handle(
    handler: { method: MethodDefinition; handle: Handler },
    body: Uint8Array,
    peer: Peer,
    requestId: number | undefined,
  ): Promise<void> {
    const record = { peer, requestId: requestId ?? -1 };
    if (requestId !== undefined) this.inFlight.add(record);
    let outcome: { ok: true; body: Uint8Array } | { ok: false; code: ErrorCode; message: string };
    try {
      outcome = { ok: true, body: await handler.handle(body, { from: peer.address, method: handler.method.name }) };
    } catch (error) {
      const code =
        error instanceof BrokenPromise
          ? ErrorCode.BrokenPromise
          : error instanceof SerializationError
            ? ErrorCode.Serialization
            : ErrorCode.Application;
      outcome = { ok: false, code, message: describe(error) };
    }
    // Answered already (BrokenPromise at close), or nobody to answer.
    if (requestId === undefined || !this.inFlight.delete(record)) return;
    if (!outcome.ok) return this.sendError(peer, requestId, outcome.code, outcome.message);
    let frame: Uint8Array;
    try {
      frame = encodeWireFrame(REPLY_TOKEN, encodeReply(requestId, outcome.body), this.config.maxPayloadBytes);
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      return this.sendError(peer, requestId, ErrorCode.Serialization, `the reply is too large: ${error.message}`);
    }
    this.sendFrame(peer, frame, requestId);
  }

  private sendError(peer: Peer, requestId: number, code: ErrorCode, message: string): void {
    this.sendFrame(peer, encodeWireFrame(REPLY_TOKEN, encodeError(requestId, code, message)), requestId);
  }

  /** Best effort: a reply that cannot be queued is lost like one on a broken connection (the caller copes). */
  private sendFrame(peer: Peer, frame: Uint8Array, requestId: number): void {
    try {
      peer.send({ frame }, true);
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      this.event("transport_reply_dropped", { peer: peer.address, requestId, reason: error.message });
    }
  }

  private encodeBody(service: AnyService, method: MethodDefinition, request: unknown): Uint8Array {
    try {
      return service.codec.encode(request);
    } catch (error) {
      throw new SerializationError(`cannot encode the request of ${service.name}.${method.name}: ${describe(error)}`);
    }
  }

  private sendOneWay(service: AnyService, endpoint: Endpoint, method: MethodDefinition, request: unknown): void {
    const body = this.encodeBody(service, method, request);
    const frame = encodeWireFrame(endpoint.token, encodeOneWay(method.id, body), this.config.maxPayloadBytes);
    this.event("transport_call", { peer: endpoint.address, method: `${service.name}.${method.name}`, requestId: -1 });
    this.peer(endpoint.address).send({ frame }, false);
  }

  private call(
    service: AnyService,
    endpoint: Endpoint,
    method: MethodDefinition,
    request: unknown,
    mode: Mode,
  ): Promise<unknown> {
    try {
      const failure = this.monitor.endpointFailure(endpoint);
      if (failure !== undefined) throw failure;
      const body = this.encodeBody(service, method, request);
      const requestId = this.nextRequestId;
      this.nextRequestId = this.nextRequestId >= 0xffffffff ? 1 : this.nextRequestId + 1;
      const payload = encodeRequest(requestId, method.id, body);
      const frame = encodeWireFrame(endpoint.token, payload, this.config.maxPayloadBytes);
      this.event("transport_call", { peer: endpoint.address, method: `${service.name}.${method.name}`, requestId });
      return this.exchange(service, endpoint, requestId, frame, mode);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Sends one request per `mode` and settles with its reply or a typed error. */
  private exchange(
    service: AnyService,
    endpoint: Endpoint,
    requestId: number,
    frame: Uint8Array,
    mode: Mode,
  ): Promise<unknown> {
    const { address } = endpoint;
    const peer = this.peer(address);
    const reliable = mode.kind !== "try";
    return new Promise<unknown>((resolve, reject) => {
      let done = false;
      let sent = false;
      /** The copy waiting in a peer queue, if any (reliable modes re-queue after a break). */
      let queued: OutgoingMessage | undefined;
      const carriedBy = new Set<number>();
      let markDone!: () => void;
      const finished = new Promise<void>((r) => (markDone = r));
      const finish = (error: Error | undefined, value?: unknown): void => {
        if (done) return;
        done = true;
        this.pending.delete(requestId);
        if (queued !== undefined) queued.cancelled = true;
        unsubscribe();
        markDone();
        if (error === undefined) resolve(value);
        else reject(error);
      };
      const unknownOutcome = (reason: string): Error =>
        sent ? new MaybeDelivered(address, reason) : new ConnectionFailed(address, reason);
      const enqueue = (): void => {
        const message: OutgoingMessage = {
          frame,
          onWritten: (generation) => {
            sent = true;
            carriedBy.add(generation);
            if (queued === message) queued = undefined;
          },
          onDropped: (reason) => {
            if (queued === message) queued = undefined;
            if (!reliable || peer.closed) finish(unknownOutcome(reason));
          },
        };
        queued = message;
        try {
          peer.send(message, reliable);
        } catch (error) {
          queued = undefined;
          finish(error as Error);
        }
      };
      const unsubscribe = peer.onDisconnect((generation, reason) => {
        if (!carriedBy.delete(generation) || done) return;
        const why = `the connection broke after the request was sent (${reason})`;
        if (!reliable) finish(new MaybeDelivered(address, why));
        else if (queued === undefined) enqueue(); // re-send on the next connection
      });
      this.pending.set(requestId, {
        peer,
        settle: (outcome) => {
          if (!outcome.ok) {
            if (outcome.error instanceof BrokenPromise || outcome.error instanceof EndpointNotFound) {
              this.monitor.endpointFailed(endpoint, outcome.error);
            }
            return finish(outcome.error);
          }
          let value: unknown;
          try {
            value = service.codec.decode(outcome.body);
          } catch (error) {
            const where = formatEndpoint(endpoint);
            return finish(new SerializationError(`cannot decode the reply from ${where}: ${describe(error)}`));
          }
          finish(undefined, value);
        },
      });
      enqueue();
      if (mode.kind === "try" && mode.timeoutMs !== undefined) {
        const timeoutMs = mode.timeoutMs;
        this.afterTimeout(timeoutMs, finished, () => finish(unknownOutcome(`no reply within ${timeoutMs} ms`)));
      } else if (mode.kind === "get") {
        this.afterTimeout(mode.timeoutMs, finished, () => finish(new RequestTimeout(mode.timeoutMs, address)));
      } else if (mode.kind === "unlessFailed") {
        void this.watchFailure(
          address,
          mode.failedForMs,
          finished,
          () => done,
          (since) =>
            finish(unknownOutcome(`${address} has been failed for ${mode.failedForMs} ms (since ${since} ms)`)),
        );
      }
    });
  }

  private afterTimeout(timeoutMs: number, finished: Promise<void>, onTimeout: () => void): void {
    this.io.time.timeout(timeoutMs, finished).catch((error: unknown) => {
      if (error instanceof TimeoutError) onTimeout();
      else if (!isAbortError(error)) throw error;
    });
  }

  /** Calls `onFailed` once `address` has stayed failed for `failedForMs`. */
  private async watchFailure(
    address: string,
    failedForMs: number,
    finished: Promise<void>,
    isDone: () => boolean,
    onFailed: (sinceMs: number) => void,
  ): Promise<void> {
    while (!isDone()) {
      const endpoint = { address, token: REPLY_TOKEN };
      if (this.monitor.state(address) === "available") {
        await Promise.race([this.monitor.onDisconnectOrFailure(endpoint), finished]);
        continue;
      }
      const since = this.monitor.stateSinceMs(address) ?? this.io.time.now();
      const remainingMs = since + failedForMs - this.io.time.now();
      if (remainingMs <= 0) return onFailed(since);
      try {
        await this.io.time.timeout(remainingMs, Promise.race([this.monitor.onStateChanged(endpoint), finished]));
      } catch (error) {
        if (!(error instanceof TimeoutError || isAbortError(error))) throw error;
      }
    }
  }
}

function checkTimeout(value: number | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) {
    fail(`${what}: the duration must be a positive number of ms, got ${String(value)}`);
  }
  return value;
}

function errorFromCode(code: ErrorCode, message: string, address: string): Error {
  switch (code) {
    case ErrorCode.BrokenPromise:
      return new BrokenPromise(`${address}: ${message}`);
    case ErrorCode.EndpointNotFound:
      return new EndpointNotFound(address, message);
    case ErrorCode.Serialization:
      return new SerializationError(`${address}: ${message}`);
    case ErrorCode.Application:
      return new ApplicationError(message);
  }
}
