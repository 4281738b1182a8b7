/**
 * The simulated network: TCP-like, deterministic byte streams between actors' IPs (the fault-free
 * baseline of moonpool §9.1; chaos builds on the hooks marked below).
 *
 * Model:
 * - `bind` reserves `ip:port` at once and starts listening after a bind latency.
 * - `connect` takes an ephemeral local port (per-IP counter from 40000) and "arrives" after a
 *   connect latency: with nobody listening it is refused, otherwise both ends are created, the
 *   client's `connect` resolves and the server end waits in the listener's backlog.
 * - `accept` pairs the oldest backlog entry with the oldest waiting `accept` and resolves after an
 *   accept latency drawn once for that pairing.
 * - Each direction is FIFO: every chunk (and the final FIN) gets a delivery time strictly after
 *   the previous one on that direction, so same-instant tiebreaks can never reorder it.
 *
 * Ownership: every wait is an abortable `PendingOp` of the scope that created the listener or
 * connection (its incarnation and task), so a crash drops it and graceful shutdown rejects it.
 * Events are scheduled with the incarnation they wake as owner and the `network` tag.
 * A connection end belongs to the incarnation that created it (the listener's, for the server
 * end); `resetConnectionsOf` drops everything an incarnation owns when it crashes.
 */
import { IoError, type Connection, type Listener, type NetworkProvider } from "@moonpool/core";
import { Incarnation, never, type PendingOp } from "../engine/incarnation.ts";
import { EventTag, type World } from "./world.ts";
import type { ActorScope } from "./scope.ts";

/** A latency range in microseconds, `[minUs, maxUs)`, drawn uniformly from the `sim` stream. */
export type LatencyRangeUs = readonly [minUs: number, maxUs: number];

/** Latencies of the network operations; chaos replaces `SimNetwork.latency` per seed. */
export interface NetworkLatency {
  /** From `bind()` to listening. */
  readonly bindUs: LatencyRangeUs;
  /** From pairing a queued connection with an `accept()` to that accept resolving. */
  readonly acceptUs: LatencyRangeUs;
  /** From `connect()` to the connect arriving at the listener (and resolving or being refused). */
  readonly connectUs: LatencyRangeUs;
  /** From `write()`/`close()` to the chunk (or FIN) reaching the peer, before FIFO spacing. */
  readonly writeUs: LatencyRangeUs;
}

/** The baseline latencies of moonpool's default network configuration (§9.2, all uniform). */
export const BASELINE_LATENCY: NetworkLatency = Object.freeze({
  bindUs: [50, 150] as const,
  acceptUs: [1_000, 6_000] as const,
  connectUs: [1_000, 11_000] as const,
  writeUs: [100, 600] as const,
});

/** First ephemeral port of each IP; ports are handed out in order from here (then wrap). */
export const EPHEMERAL_PORT_FIRST = 40_000;
/** Last ephemeral port (inclusive). */
export const EPHEMERAL_PORT_LAST = 65_535;
/** Minimum gap between two deliveries on one direction, in µs: keeps each direction FIFO. */
export const FIFO_SPACING_US = 1;

const ADDR_PATTERN = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3}):(\d{1,5})$/;

/** Parses a canonical `a.b.c.d:port` address (port 1..65535) or throws `IoError("EINVAL")`. */
export function parseAddr(addr: string): { readonly ip: string; readonly port: number } {
  const m = typeof addr === "string" ? ADDR_PATTERN.exec(addr) : null;
  const canonical = (s: string, max: number, min: number): boolean => String(Number(s)) === s && Number(s) <= max && Number(s) >= min;
  if (m === null || ![m[1]!, m[2]!, m[3]!, m[4]!].every((o) => canonical(o, 255, 0)) || !canonical(m[5]!, 65_535, 1)) {
    throw new IoError("EINVAL", `invalid address ${JSON.stringify(addr)}: expected "ip:port" with an IPv4 ip and a port in 1..65535, e.g. "10.0.1.1:4500"`);
  }
  return { ip: addr.slice(0, addr.lastIndexOf(":")), port: Number(m[5]) };
}

/** Key of the ordered IP pair `from -> to` (partitions and per-pair latency will look this up). */
export function pairKey(fromIp: string, toIp: string): string {
  return `${fromIp}->${toIp}`;
}

function addrError(addr: string): IoError | null {
  try {
    parseAddr(addr);
    return null;
  } catch (error) {
    return error as IoError;
  }
}

function ipOf(addr: string): string {
  return addr.slice(0, addr.lastIndexOf(":"));
}

function isPending(op: PendingOp): boolean {
  return op.owner.pending.has(op);
}

/** Whether code of `scope` may still observe results (a dead incarnation or task never resumes). */
function scopeAlive(scope: ActorScope): boolean {
  return scope.incarnation.alive && (scope.taskState === null || scope.taskState.alive);
}

function settled<T>(scope: ActorScope, value: T): Promise<T> {
  return scopeAlive(scope) ? Promise.resolve(value) : never<T>();
}

function failed<T>(scope: ActorScope, error: unknown): Promise<T> {
  return scopeAlive(scope) ? Promise.reject(error) : never<T>();
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** A chunk in flight to `to`; `data === null` is the FIN (end of stream). */
export type Chunk = { readonly to: SimConnection; readonly data: Uint8Array | null };

// Maps of insertion-ordered sets; an emptied set is deleted so nothing dead stays reachable.
function addTo<K, V>(map: Map<K, Set<V>>, key: K, item: V): void {
  const set = map.get(key);
  if (set === undefined) map.set(key, new Set([item]));
  else set.add(item);
}
function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, item: V): void {
  const set = map.get(key);
  if (set !== undefined && set.delete(item) && set.size === 0) map.delete(key);
}

/** One end of a simulated connection. Fields are internal state shared with `SimNetwork`. */
export class SimConnection implements Connection {
  /** The other end; null once the pair was reset, so neither end keeps the other alive. */
  peer: SimConnection | null = null;
  /** Delivered chunks not yet read, in order, and their total length. */
  inbox: Uint8Array[] = [];
  inboxBytes = 0;
  /** The peer's FIN was delivered: once the inbox is drained, reads return null. */
  eof = false;
  /** Our sending side is closed (`close()` was called). */
  closed = false;
  /** The connection was reset (peer crashed or listener closed before accept). */
  reset = false;
  /** Delivery time (µs) of the last chunk sent from this end: the FIFO floor of this direction. */
  lastDeliveryUs = -Infinity;
  readonly localIp: string;
  readonly peerIp: string;
  private pendingRead: PendingOp<Uint8Array | null> | null = null;

  constructor(
    readonly net: SimNetwork,
    /** The scope whose incarnation and task own this end's waits. */
    readonly scope: ActorScope,
    readonly localAddr: string,
    readonly peerAddr: string,
  ) {
    this.localIp = ipOf(localAddr);
    this.peerIp = ipOf(peerAddr);
  }

  get owner(): Incarnation {
    return this.scope.incarnation;
  }

  /**
   * Everything buffered, or waits for the next delivery. One read may wait at a time: a second
   * concurrent read rejects with `IoError("EBUSY")` (two readers of one stream is a bug).
   */
  read(): Promise<Uint8Array | null> {
    if (this.reset) return failed(this.scope, this.resetError());
    if (this.inboxBytes > 0) return settled(this.scope, this.takeReadable());
    if (this.eof) return settled(this.scope, null);
    if (this.pendingRead !== null && isPending(this.pendingRead)) {
      return failed(this.scope, new IoError("EBUSY", `a read on ${this.localAddr} is already waiting; read from one task at a time`));
    }
    const op = this.owner.begin<Uint8Array | null>(this.scope.taskState, true, "read on", this.localAddr);
    this.pendingRead = op;
    return op === null ? never() : op.promise;
  }

  /** Copies `bytes` and queues them; resolves immediately (queued, not yet delivered; no backpressure). */
  write(bytes: Uint8Array): Promise<void> {
    if (this.reset) return failed(this.scope, this.resetError());
    if (this.closed) return failed(this.scope, new IoError("EPIPE", `write on ${this.localAddr} after close(); open a new connection`));
    if (bytes.length > 0) this.net.send(this, new Uint8Array(bytes)); // copy: the caller may reuse its buffer
    return settled(this.scope, undefined);
  }

  /** Graceful: the FIN follows the last queued byte. Closing twice (or after a reset) is harmless. */
  close(): Promise<void> {
    if (!this.closed && !this.reset) {
      this.closed = true;
      this.net.send(this, null);
    }
    return settled(this.scope, undefined);
  }

  /**
   * Takes what one read returns: today everything buffered, concatenated. The one place where
   * read splitting (chaos partial reads) will decide how many bytes to hand out.
   */
  takeReadable(): Uint8Array {
    const out = concat(this.inbox, this.inboxBytes);
    this.inbox = [];
    this.inboxBytes = 0;
    return out;
  }

  /** Settles a waiting read after a delivery or a reset. */
  wake(): void {
    const op = this.pendingRead;
    if (op === null) return;
    this.pendingRead = null;
    if (this.reset) Incarnation.reject(op, this.resetError());
    else if (this.inboxBytes > 0) Incarnation.resolve(op, this.takeReadable());
    else if (this.eof) Incarnation.resolve(op, null);
    else this.pendingRead = op; // nothing to hand out yet
  }

  /** Drops a waiting read without settling it (its owner crashed). */
  dropRead(): void {
    if (this.pendingRead !== null) Incarnation.cancel(this.pendingRead);
    this.pendingRead = null;
  }

  resetError(): IoError {
    return new IoError("ECONNRESET", `connection ${this.localAddr} <-> ${this.peerAddr} was reset by the peer`);
  }
}

/** A listening socket: connections queue in `backlog`, `accept()` calls in `waiters`. */
export class SimListener implements Listener {
  /** True once the bind latency elapsed: connects arriving before that are refused. */
  listening = false;
  closed = false;
  readonly backlog: SimConnection[] = [];
  readonly waiters: PendingOp<Connection>[] = [];

  constructor(
    readonly net: SimNetwork,
    readonly scope: ActorScope,
    readonly localAddr: string,
  ) {}

  get owner(): Incarnation {
    return this.scope.incarnation;
  }

  accept(): Promise<Connection> {
    if (this.closed) return failed(this.scope, this.closedError());
    const op = this.owner.begin<Connection>(this.scope.taskState, true, "accept on", this.localAddr);
    if (op === null) return never();
    this.waiters.push(op);
    this.net.pump(this);
    return op.promise;
  }

  /** Stops accepting: waiting accepts reject with EBADF, queued connections are reset. */
  close(): Promise<void> {
    this.net.closeListener(this, false);
    return settled(this.scope, undefined);
  }

  closedError(): IoError {
    return new IoError("EBADF", `listener ${this.localAddr} is closed; bind again to accept`);
  }
}

// Event arguments: one small object per event, read by a module-level callback (no closures).
type ConnectAttempt = { net: SimNetwork; scope: ActorScope; op: PendingOp<Connection>; localAddr: string; remoteAddr: string };
type AcceptPairing = { listener: SimListener; op: PendingOp<Connection>; conn: SimConnection };
type BindCompletion = { listener: SimListener; op: PendingOp<Listener> };

function deliverChunk(chunk: Chunk): void {
  chunk.to.net.deliver(chunk);
}
function arriveConnect(attempt: ConnectAttempt): void {
  attempt.net.arrive(attempt);
}
function completeAccept(pairing: AcceptPairing): void {
  pairing.listener.net.finishAccept(pairing);
}
function completeBind(done: BindCompletion): void {
  if (done.listener.closed) return; // closed (or its owner crashed) while binding
  done.listener.listening = true;
  if (!Incarnation.resolve(done.op, done.listener)) done.listener.net.closeListener(done.listener, true);
}

type Owned = SimConnection | SimListener;

/** The network of one world: listeners, live connections, and the events that move bytes. */
export class SimNetwork {
  /** Current latencies; chaos assigns another configuration before the seed starts. */
  latency: NetworkLatency = BASELINE_LATENCY;
  /** Reserved listening addresses (from `bind()` until close or crash). */
  private readonly listeners = new Map<string, SimListener>();
  /** Local addresses of client ends and pending connects (ephemeral ports in use). */
  private readonly ephemeralInUse = new Set<string>();
  /** Next ephemeral port to try, per IP. */
  private readonly nextPort = new Map<string, number>();
  /** What each incarnation owns, so a crash can reset it. Entries leave when retired or reset. */
  private readonly owned = new Map<Incarnation, Set<Owned>>();
  /** Live connection ends by ordered IP pair `local -> peer` (insertion order). */
  private readonly byPair = new Map<string, Set<SimConnection>>();

  constructor(readonly world: World) {}

  providerFor(scope: ActorScope): SimNetworkProvider {
    return new SimNetworkProvider(this, scope);
  }

  /** Live connection ends whose local IP is `fromIp` and peer IP is `toIp`, in creation order. */
  connectionsBetween(fromIp: string, toIp: string): readonly SimConnection[] {
    const set = this.byPair.get(pairKey(fromIp, toIp));
    return set === undefined ? [] : [...set];
  }

  /**
   * A process crashed: every connection and listener `incarnation` owns is dropped. Its own waits
   * are dropped silently (it never resumes); each peer end sees ECONNRESET on its pending and next
   * read and write; its listeners close, so later connects are refused. Call it right after kill().
   */
  resetConnectionsOf(incarnation: Incarnation): void {
    const items = this.owned.get(incarnation);
    if (items === undefined) return;
    this.owned.delete(incarnation);
    for (const item of [...items]) {
      if (item instanceof SimListener) this.closeListener(item, true);
      else this.resetPair(item, incarnation);
    }
  }

  bind(scope: ActorScope, addr: string): Promise<Listener> {
    const ip = addrError(addr) ?? ipOf(addr);
    if (ip instanceof IoError) return failed(scope, ip);
    if (ip !== scope.ip) {
      return failed(scope, new IoError("EADDRNOTAVAIL", `cannot bind ${addr}: ${ip} is not this process's IP; bind "${scope.ip}:<port>"`));
    }
    if (this.listeners.has(addr) || this.ephemeralInUse.has(addr)) {
      return failed(scope, new IoError("EADDRINUSE", `${addr} is already bound; close its listener first or use another port`));
    }
    const op = scope.incarnation.begin<Listener>(scope.taskState, true, "bind", addr);
    if (op === null) return never();
    const promise = op.promise;
    const listener = new SimListener(this, scope, addr);
    this.listeners.set(addr, listener);
    addTo(this.owned, listener.owner, listener);
    const done: BindCompletion = { listener, op };
    this.world.engine.schedule(this.sampleUs(this.latency.bindUs), completeBind, done, EventTag.network, scope.incarnation);
    return promise;
  }

  connect(scope: ActorScope, addr: string): Promise<Connection> {
    const invalid = addrError(addr);
    if (invalid !== null) return failed(scope, invalid);
    const op = scope.incarnation.begin<Connection>(scope.taskState, true, "connect to", addr);
    if (op === null) return never();
    const promise = op.promise;
    const localAddr = this.allocateEphemeral(scope.ip);
    if (localAddr === null) {
      Incarnation.reject(op, new IoError("EADDRNOTAVAIL", `no free ephemeral port on ${scope.ip}; close some connections`));
      return promise;
    }
    const attempt: ConnectAttempt = { net: this, scope, op, localAddr, remoteAddr: addr };
    this.world.engine.schedule(this.sampleUs(this.latency.connectUs), arriveConnect, attempt, EventTag.network, scope.incarnation);
    return promise;
  }

  /** A connect reaches its destination: refuse it, or create both ends and queue the server's. */
  arrive(attempt: ConnectAttempt): void {
    const { op, localAddr, remoteAddr } = attempt;
    if (!isPending(op)) {
      this.ephemeralInUse.delete(localAddr); // the caller crashed, was aborted or shut down
      return;
    }
    const listener = this.listeners.get(remoteAddr);
    if (listener === undefined || !listener.listening || listener.closed || !listener.owner.alive) {
      this.ephemeralInUse.delete(localAddr);
      Incarnation.reject(op, new IoError("ECONNREFUSED", `nobody listens on ${remoteAddr} (connect from ${localAddr})`));
      return;
    }
    const client = new SimConnection(this, attempt.scope, localAddr, remoteAddr);
    const server = new SimConnection(this, listener.scope, remoteAddr, localAddr);
    client.peer = server;
    server.peer = client;
    this.registerConnection(client);
    this.registerConnection(server);
    listener.backlog.push(server);
    this.pump(listener);
    Incarnation.resolve(op, client);
  }

  /** Pairs queued connections with waiting accepts, in order; the accept latency is drawn per pairing. */
  pump(listener: SimListener): void {
    while (listener.backlog.length > 0) {
      while (listener.waiters.length > 0 && !isPending(listener.waiters[0]!)) listener.waiters.shift();
      const op = listener.waiters.shift();
      if (op === undefined) return;
      const pairing: AcceptPairing = { listener, op, conn: listener.backlog.shift()! };
      this.world.engine.schedule(this.sampleUs(this.latency.acceptUs), completeAccept, pairing, EventTag.network, listener.owner);
    }
  }

  finishAccept({ listener, op, conn }: AcceptPairing): void {
    if (listener.closed) {
      this.resetPair(conn, null);
      Incarnation.reject(op, listener.closedError());
    } else if (!Incarnation.resolve(op, conn)) {
      // The accept was abandoned (task aborted, shutdown): the connection stays first in line.
      listener.backlog.unshift(conn);
      this.pump(listener);
    }
  }

  closeListener(listener: SimListener, crashed: boolean): void {
    if (listener.closed) return;
    listener.closed = true;
    if (this.listeners.get(listener.localAddr) === listener) this.listeners.delete(listener.localAddr);
    removeFrom(this.owned, listener.owner, listener);
    for (const op of listener.waiters.splice(0)) {
      if (crashed) Incarnation.cancel(op);
      else Incarnation.reject(op, listener.closedError());
    }
    for (const conn of listener.backlog.splice(0)) this.resetPair(conn, crashed ? listener.owner : null);
  }

  /** Queues a chunk (or the FIN, `data === null`) from `from` to its peer. */
  send(from: SimConnection, data: Uint8Array | null): void {
    const to = from.peer;
    if (to === null) return;
    const chunk: Chunk = { to, data };
    this.world.engine.scheduleAt(this.deliveryTimeUs(from), deliverChunk, chunk, EventTag.network, to.owner);
  }

  /**
   * The one place that decides when the next chunk sent by `from` arrives: write latency, then
   * FIFO spacing after the previous chunk on this direction. Chaos (latency shapes, per-pair
   * latency, clogging) will hook in here.
   */
  deliveryTimeUs(from: SimConnection): number {
    const earliest = this.world.engine.nowUs + this.sampleUs(this.latency.writeUs);
    const atUs = Math.max(earliest, from.lastDeliveryUs + FIFO_SPACING_US);
    from.lastDeliveryUs = atUs;
    return atUs;
  }

  /**
   * The one place a chunk lands in its receiver (chaos: drops, bit flips). Nothing is delivered
   * to or from a dead incarnation, nor on a reset connection.
   */
  deliver(chunk: Chunk): void {
    const to = chunk.to;
    const from = to.peer;
    if (to.reset || from === null || !to.owner.alive || !from.owner.alive) return;
    if (chunk.data === null) to.eof = true;
    else {
      to.inbox.push(chunk.data);
      to.inboxBytes += chunk.data.length;
    }
    to.wake();
    if (to.eof && from.eof) this.retire(to); // both FINs delivered: the pair is finished
  }

  /** Resets the pair `end` belongs to. Waits of `crashed` are dropped; everyone else's reject. */
  private resetPair(end: SimConnection, crashed: Incarnation | null): void {
    const peer = end.peer;
    for (const e of peer === null ? [end] : [end, peer]) {
      if (e.reset) continue;
      e.reset = true;
      e.inbox = [];
      e.inboxBytes = 0;
      if (e.owner === crashed || !e.owner.alive) e.dropRead();
      else e.wake();
      this.unregisterConnection(e);
    }
    // Sever both links so a live end never keeps a dead incarnation's objects reachable.
    end.peer = null;
    if (peer !== null) peer.peer = null;
  }

  private retire(end: SimConnection): void {
    this.unregisterConnection(end);
    if (end.peer !== null) this.unregisterConnection(end.peer);
  }

  private allocateEphemeral(ip: string): string | null {
    const span = EPHEMERAL_PORT_LAST - EPHEMERAL_PORT_FIRST + 1;
    let port = this.nextPort.get(ip) ?? EPHEMERAL_PORT_FIRST;
    for (let tries = 0; tries < span; tries++) {
      const addr = `${ip}:${port}`;
      port = port === EPHEMERAL_PORT_LAST ? EPHEMERAL_PORT_FIRST : port + 1;
      if (!this.ephemeralInUse.has(addr) && !this.listeners.has(addr)) {
        this.nextPort.set(ip, port);
        this.ephemeralInUse.add(addr);
        return addr;
      }
    }
    return null;
  }

  private registerConnection(end: SimConnection): void {
    addTo(this.owned, end.owner, end);
    addTo(this.byPair, pairKey(end.localIp, end.peerIp), end);
  }

  private unregisterConnection(end: SimConnection): void {
    removeFrom(this.owned, end.owner, end);
    removeFrom(this.byPair, pairKey(end.localIp, end.peerIp), end);
    this.ephemeralInUse.delete(end.localAddr); // no-op for server ends (their address is the listener's)
  }

  private sampleUs([minUs, maxUs]: LatencyRangeUs): number {
    return maxUs > minUs ? this.world.engine.streams.sim.rangeInt(minUs, maxUs) : minUs;
  }
}

/** `ctx.network` of one scope: binds and connects on behalf of that scope's incarnation and task. */
export class SimNetworkProvider implements NetworkProvider {
  constructor(
    private readonly net: SimNetwork,
    private readonly scope: ActorScope,
  ) {}

  bind(addr: string): Promise<Listener> {
    return this.net.bind(this.scope, addr);
  }

  connect(addr: string): Promise<Connection> {
    return this.net.connect(this.scope, addr);
  }
}
