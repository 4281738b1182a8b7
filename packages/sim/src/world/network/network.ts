/**
 * The simulated network: TCP-like, deterministic byte streams between actors' IPs, and every
 * network fault family (docs/fault-catalogue.md) applied according to `SimNetwork.config` (a bare world
 * has none; the runner installs the seed's configuration).
 *
 * Model:
 * - `bind` reserves `ip:port` at once and starts listening after a bind latency.
 * - `connect` takes an ephemeral local port (per-IP counter from 40000) and "arrives" after a
 *   connect latency: with nobody listening it is refused, otherwise both ends are created, the
 *   client's `connect` resolves and the server end waits in the listener's backlog.
 * - `accept` pairs the oldest backlog entry with the oldest waiting `accept` and resolves after an
 *   accept latency drawn once for that pairing.
 * - Each direction is FIFO: every chunk (and the final FIN) gets a delivery time strictly after
 *   the previous one on that direction, so the random order of same-instant events can never reorder it.
 *
 * Faults (see `config.ts` for the knobs, `NETWORK_FAULT_KINDS` for the events, `fault-rolls.ts` for the decisions):
 * - Timing: latency shapes per operation, a per-pair latency, and the link latency the runner
 *   derives from the cluster's localities (`linkLatencyUs`).
 * - Connect failure (refused or hanging), partial writes and reads, bit flips on delivery,
 *   random close (RST, or a silent one-way close), read/write clogs.
 * - Partitions (`partitions`): by IP, so they cut connections opened by either side. Bytes and
 *   connects that meet a cut are held and move on, in order, when it heals: a stream stalls
 *   like TCP retransmitting, it never gets a hole. A connect held (or hung by chaos) fails with
 *   ETIMEDOUT once the connect timeout has passed since its `connect()` (`connectTimeoutUs`).
 * - Stable connections (`markStable`) are exempt from clogs, random close, bit flips and
 *   partial I/O (not from latency or partitions).
 *
 * Ownership: every wait is an abortable `PendingOp` of the scope that created the listener or
 * connection (its incarnation and task), so a crash drops it and graceful shutdown rejects it.
 * Events are scheduled with the incarnation they wake as owner and the `network` tag.
 * A connection end belongs to the incarnation that created it (the listener's, for the server
 * end); `resetConnectionsOf` drops everything an incarnation owns when it crashes.
 */
import { IoError, type Connection, type Listener } from "@moonpool/core";
import { Incarnation, never } from "../../engine/incarnation.ts";
import type { RandomStream } from "../../engine/rng.ts";
import { EventTag } from "../event-tag.ts";
import type { ActorScope } from "../scope.ts";
import type { World } from "../world.ts";
import { addrError, ipOf } from "./address.ts";
import {
  NETWORK_BUGGIFY_FIRE_PROBABILITY,
  NETWORK_BUGGIFY_IDS,
  NETWORK_FAULT_KINDS,
  NETWORK_NO_FAULTS,
  NEVER_FIRES,
  sampleLatencyUs,
  sampleRangeUs,
  withFaultsOff,
  type FaultGate,
  type NetworkConfig,
  DEFAULT_CONNECT_TIMEOUT_US,
} from "./config.ts";
import { failed, isPending, SimConnection, SimListener } from "./connection.ts";
import { NetworkFaultRolls } from "./fault-rolls.ts";
import {
  arriveConnect,
  connectAttempt,
  timeOutConnect,
  arriveSkippedPrefix,
  landHeldChunks,
  completeAccept,
  completeBind,
  deliverChunk,
  wakeEnd,
  type AcceptPairing,
  type BindCompletion,
  type ConnectAttempt,
} from "./events.ts";
import { compareIps, pairKey, PartitionTable } from "./partitions.ts";
import { SimNetworkProvider } from "./provider.ts";

/** First ephemeral port of each IP; ports are handed out in order from here (then wrap). */
export const EPHEMERAL_PORT_FIRST = 40_000;
/** Last ephemeral port (inclusive). */
export const EPHEMERAL_PORT_LAST = 65_535;
/** Minimum gap between two deliveries on one direction, in µs: keeps each direction FIFO. */
export const FIFO_SPACING_US = 1;

// Maps of insertion-ordered sets; an emptied set is deleted so nothing dead stays reachable.
function addTo<K, V>(map: Map<K, Set<V>>, key: K, item: V): void {
  const set = map.get(key);
  // Not `new Set([item])`: the iterable constructor is several times slower than an add.
  if (set === undefined) map.set(key, new Set<V>().add(item));
  else set.add(item);
}
function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, item: V): void {
  const set = map.get(key);
  if (set !== undefined && set.delete(item) && set.size === 0) map.delete(key);
}

type Owned = SimConnection | SimListener;

/** The network of one world: listeners, live connections, faults, and the events that move bytes. */
export class SimNetwork {
  private currentConfig: NetworkConfig = NETWORK_NO_FAULTS;
  /**
   * Whether any per-call fault (random close, clog, partial I/O, bit flip) can happen: when not,
   * reads and writes skip every fault check with this one test (the engine benchmark's path).
   */
  endFaults = false;
  /** Where buggify-gated families ask whether to fire (the seed's Buggify). */
  gate: FaultGate = NEVER_FIRES;
  /** Extra latency between two IPs from the cluster's localities (`.linkLatency(...)`), or null. */
  linkLatencyUs: ((fromIp: string, toIp: string) => number) | null = null;
  readonly partitions: PartitionTable;
  /** Reserved listening addresses (from `bind()` until close or crash). */
  private readonly listeners = new Map<string, SimListener>();
  /** Local addresses of client ends and pending connects (ephemeral ports in use). */
  private readonly ephemeralInUse = new Set<string>();
  /** Next ephemeral port to try, per IP. */
  private readonly nextPort = new Map<string, number>();
  /** What each incarnation owns, so a crash can reset it. Entries leave when retired or reset. */
  private readonly owned = new Map<Incarnation, Set<Owned>>();
  /**
   * How many live connection ends each local IP has (what random partitions split). A count, not
   * a set of ends per IP pair: registering 2 ends per connection in a map keyed by a pair string
   * was the largest cost of a 100-node all-to-all set-up besides GC.
   */
  private readonly liveEndsByIp = new Map<string, number>();
  /** Ends with chunks held by a partition, and connects held on their way. */
  readonly heldEnds = new Set<SimConnection>();
  /** Processes whose code must resume as themselves (Node's modules find their process that way). */
  readonly resumeAsOwner = new WeakSet<object>();
  private heldConnects: ConnectAttempt[] = [];
  /** Per-pair latency drawn at first contact, by `pairKey`. */
  private readonly pairLatency = new Map<string, number>();
  /** Fault decisions and their cooldowns (`fault-rolls.ts`). */
  readonly faults = new NetworkFaultRolls(this);
  private nextConnectionId = 1;
  /**
   * Addresses `connect` already found well-formed: a cluster dials the same few addresses over and
   * over, and the parse (a regex and its checks) was a visible share of a 100-node set-up.
   */
  private readonly validAddrs = new Set<string>();

  constructor(readonly world: World) {
    this.partitions = new PartitionTable(world, () => this.releaseHeld());
  }

  /** The seed's configuration; the runner installs it before the seed starts. */
  get config(): NetworkConfig {
    return this.currentConfig;
  }

  set config(config: NetworkConfig) {
    this.currentConfig = config;
    this.endFaults =
      config.randomCloseProbability > 0 ||
      config.clogProbability > 0 ||
      config.partialReadMaxBytes > 0 ||
      config.partialWriteMaxBytes > 0 ||
      config.bitFlipProbability > 0;
  }

  get sim(): RandomStream {
    return this.world.engine.streams.sim;
  }

  providerFor(scope: ActorScope): SimNetworkProvider {
    return new SimNetworkProvider(this, scope);
  }

  /** Live connection ends whose local IP is `fromIp` and peer IP is `toIp`, in creation order. */
  connectionsBetween(fromIp: string, toIp: string): readonly SimConnection[] {
    const out: SimConnection[] = [];
    for (const items of this.owned.values()) {
      for (const item of items) {
        if (item instanceof SimConnection && item.localIp === fromIp && item.peerIp === toIp) out.push(item);
      }
    }
    // Ids are handed out in creation order, and a direction holds one end per connection.
    return out.sort((a, b) => a.connectionId - b.connectionId);
  }

  /** Marks both ends of `conn` stable: exempt from clogs, random close, bit flips and partial I/O. */
  markStable(conn: Connection): void {
    if (!(conn instanceof SimConnection)) {
      throw new TypeError(
        "markConnectionStable(conn): conn must be a connection of the simulated network (from ctx.network)",
      );
    }
    conn.stable = true;
    if (conn.peer !== null) conn.peer.stable = true;
  }

  /**
   * Recovery mode (the chaos cutoff): every fault family stops, timing stays, every partition
   * heals (each direction a `partition_healed` event) and held traffic moves on. Clogs already
   * started and bytes already delayed run their course.
   */
  enterRecoveryMode(): void {
    this.config = withFaultsOff(this.config);
    this.faults.randomPartitionUntilUs = 0;
    this.partitions.healAll("recovery");
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
      return failed(
        scope,
        new IoError("EADDRNOTAVAIL", `cannot bind ${addr}: ${ip} is not this process's IP; bind "${scope.ip}:<port>"`),
      );
    }
    if (this.listeners.has(addr) || this.ephemeralInUse.has(addr)) {
      return failed(
        scope,
        new IoError("EADDRINUSE", `${addr} is already bound; close its listener first or use another port`),
      );
    }
    const op = scope.incarnation.begin<Listener>(scope.taskState, true, "bind", addr);
    if (op === null) return never();
    const promise = op.promise;
    const listener = new SimListener(this, scope, addr);
    this.listeners.set(addr, listener);
    addTo(this.owned, listener.owner, listener);
    const done: BindCompletion = { listener, op };
    this.world.engine.schedule(
      sampleLatencyUs(this.config.latency.bind, this.sim),
      completeBind,
      done,
      EventTag.network,
      scope.incarnation,
    );
    return promise;
  }

  connect(scope: ActorScope, addr: string): Promise<Connection> {
    if (!this.validAddrs.has(addr)) {
      const invalid = addrError(addr);
      if (invalid !== null) return failed(scope, invalid);
      this.validAddrs.add(addr);
    }
    const op = scope.incarnation.begin<Connection>(scope.taskState, true, "connect to", addr);
    if (op === null) return never();
    const promise = op.promise;
    const remoteIp = ipOf(addr);
    const failure = this.faults.connectFailure(scope.ip, remoteIp, addr);
    // A hanging connect (its SYN dropped) ends only by the connect timeout, shutdown (AbortError) or a crash.
    if (failure === "hang") {
      this.armConnectTimeout(connectAttempt(this, scope, op, "", addr, false, this.world.engine.nowUs));
      return promise;
    }
    const localAddr = this.allocateEphemeral(scope.ip);
    if (localAddr === null) {
      Incarnation.reject(
        op,
        new IoError("EADDRNOTAVAIL", `no free ephemeral port on ${scope.ip}; close some connections`),
      );
      return promise;
    }
    const attempt = connectAttempt(this, scope, op, localAddr, addr, failure === "refuse", this.world.engine.nowUs);
    const delayUs = sampleLatencyUs(this.config.latency.connect, this.sim) + this.pathLatencyUs(scope.ip, remoteIp);
    this.world.engine.schedule(delayUs, arriveConnect, attempt, EventTag.network, scope.incarnation);
    return promise;
  }

  /** A connect reaches its destination: refuse it, hold it (partition), or create both ends and queue the server's. */
  arrive(attempt: ConnectAttempt): void {
    const { op, localAddr, remoteAddr } = attempt;
    if (!isPending(op)) {
      this.ephemeralInUse.delete(localAddr); // the caller crashed, was aborted or shut down
      return;
    }
    if (attempt.refused) {
      this.ephemeralInUse.delete(localAddr);
      Incarnation.reject(
        op,
        new IoError("ECONNREFUSED", `connect to ${remoteAddr} refused (simulated connect failure, from ${localAddr})`),
      );
      return;
    }
    const clientIp = attempt.scope.ip;
    const serverIp = ipOf(remoteAddr);
    this.faults.rollRandomPartition();
    // The handshake needs both directions; a cut one holds the connect until it heals.
    if (this.partitions.blocks(clientIp, serverIp) || this.partitions.blocks(serverIp, clientIp)) {
      this.heldConnects.push(attempt);
      this.armConnectTimeout(attempt);
      return;
    }
    const listener = this.listeners.get(remoteAddr);
    if (listener === undefined || !listener.listening || listener.closed || !listener.owner.alive) {
      this.ephemeralInUse.delete(localAddr);
      Incarnation.reject(
        op,
        new IoError("ECONNREFUSED", `nobody listens on ${remoteAddr} (connect from ${localAddr})`),
      );
      return;
    }
    const id = this.nextConnectionId++;
    const client = new SimConnection(this, attempt.scope, localAddr, remoteAddr, id, clientIp, serverIp);
    const server = new SimConnection(this, listener.scope, remoteAddr, localAddr, id, serverIp, clientIp);
    client.peer = server;
    server.peer = client;
    this.registerConnection(client);
    this.registerConnection(server);
    listener.backlog.push(server);
    this.pump(listener);
    Incarnation.resolve(op, client);
  }

  /**
   * A connect whose handshake gets no answer fails after the config's connect timeout from its
   * `connect()` call (default near Linux's: `DEFAULT_CONNECT_TIMEOUT_US`); 0 keeps it waiting.
   */
  private armConnectTimeout(attempt: ConnectAttempt): void {
    const timeoutUs = this.config.connectTimeoutUs ?? DEFAULT_CONNECT_TIMEOUT_US;
    if (timeoutUs === 0 || attempt.timeout !== null) return;
    const atUs = attempt.startUs + timeoutUs;
    const owner = attempt.scope.incarnation;
    attempt.timeout = this.world.engine.scheduleAt(atUs, timeOutConnect, attempt, EventTag.network, owner);
  }

  timeOutConnect(attempt: ConnectAttempt): void {
    attempt.timeout = null;
    const held = this.heldConnects.indexOf(attempt);
    if (held >= 0) this.heldConnects.splice(held, 1);
    if (attempt.localAddr !== "") this.ephemeralInUse.delete(attempt.localAddr);
    const ms = (this.world.engine.nowUs - attempt.startUs) / 1000;
    Incarnation.reject(
      attempt.op,
      new IoError(
        "ETIMEDOUT",
        `connect to ${attempt.remoteAddr} timed out after ${ms} ms: no answer to its handshake (a partition or a dropped SYN)`,
      ),
    );
  }

  /** Pairs queued connections with waiting accepts, in order; the accept latency is drawn per pairing. */
  pump(listener: SimListener): void {
    while (listener.backlog.length > 0) {
      while (listener.waiters.length > 0 && !isPending(listener.waiters[0]!)) listener.waiters.shift();
      const op = listener.waiters.shift();
      if (op === undefined) return;
      const pairing: AcceptPairing = { listener, op, conn: listener.backlog.shift()! };
      this.world.engine.schedule(
        sampleLatencyUs(this.config.latency.accept, this.sim),
        completeAccept,
        pairing,
        EventTag.network,
        listener.owner,
      );
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

  /**
   * Queues a chunk (or the FIN, `data === null`) from `from` to its peer. A partial write sends a
   * prefix first and the rest as later chunks (each with its own latency, FIFO kept).
   */
  send(from: SimConnection, data: Uint8Array | null): void {
    const to = from.peer;
    if (to === null) return;
    let rest = data;
    const maxBytes = this.config.partialWriteMaxBytes;
    if (rest !== null && maxBytes > 0 && !from.stable && rest.length > 1) {
      // Bytes not split off yet, skipped splits included, and the skipped prefixes still to send.
      let left = rest.length;
      let held = 0;
      while (left > 1 && this.gate.fires(NETWORK_BUGGIFY_IDS.partialWrite, NETWORK_BUGGIFY_FIRE_PROBABILITY)) {
        const splitBytes = this.sim.rangeInt(1, Math.min(left - 1, maxBytes) + 1);
        left -= splitBytes;
        // A skipped split still draws its prefix's delivery time, makes the draws of its arrival
        // there, and the loop rolls on as it would have, so later draws stay in place; the
        // prefix's bytes travel with the next chunk.
        if (this.world.skipFault(NETWORK_FAULT_KINDS.partialWrite)) {
          const prefix = rest.subarray(held, held + splitBytes);
          this.world.engine.scheduleAt(
            this.deliveryTimeUs(from),
            arriveSkippedPrefix,
            to,
            EventTag.network,
            to.owner,
            prefix,
          );
          held += splitBytes;
          continue;
        }
        const sentBytes = held + splitBytes;
        held = 0;
        this.schedule(from, to, rest.subarray(0, sentBytes));
        rest = rest.subarray(sentBytes);
        this.world.recordFault(NETWORK_FAULT_KINDS.partialWrite, {
          connectionId: from.connectionId,
          from: from.localIp,
          to: from.peerIp,
          sentBytes,
          remainingBytes: rest.length,
        });
      }
    }
    this.schedule(from, to, rest);
  }

  private schedule(from: SimConnection, to: SimConnection, data: Uint8Array | null): void {
    this.world.engine.scheduleAt(this.deliveryTimeUs(from), deliverChunk, to, EventTag.network, to.owner, data);
  }

  /**
   * The one place that decides when the next chunk sent by `from` arrives: after a write clog,
   * write latency plus the path's latency (per-pair, link), then FIFO spacing after the previous
   * chunk on this direction.
   */
  deliveryTimeUs(from: SimConnection): number {
    const startUs = Math.max(this.world.engine.nowUs, from.writeClogUntilUs);
    const earliest =
      startUs +
      sampleLatencyUs(this.config.latency.write, this.sim) +
      this.pathLatencyUs(from.localIp, from.peerIp, from.pairKey);
    const atUs = Math.max(earliest, from.lastDeliveryUs + FIFO_SPACING_US);
    from.lastDeliveryUs = atUs;
    return atUs;
  }

  /** Per-pair latency (drawn once per ordered pair) plus the cluster's link latency. */
  private pathLatencyUs(fromIp: string, toIp: string, key?: string): number {
    let extraUs = 0;
    const range = this.config.pairLatencyUs;
    if (range[1] > 0) {
      key ??= pairKey(fromIp, toIp);
      let pairUs = this.pairLatency.get(key);
      if (pairUs === undefined) {
        pairUs = sampleRangeUs(range, this.sim);
        this.pairLatency.set(key, pairUs);
      }
      extraUs += pairUs;
    }
    if (this.linkLatencyUs !== null) extraUs += this.linkLatencyUs(fromIp, toIp);
    return extraUs;
  }

  /**
   * A chunk reaches its receiver's side of the network: held if the direction is partitioned (or
   * earlier chunks still are held), otherwise it lands. Nothing is delivered to or from a dead
   * incarnation, nor on a reset connection.
   */
  deliver(to: SimConnection, data: Uint8Array | null): void {
    const from = to.peer;
    if (to.reset || from === null || !to.owner.alive || !from.owner.alive) return;
    this.faults.rollRandomPartition();
    if (to.held !== null || this.partitions.blocksPair(from.localIp, to.localIp, from.pairKey)) {
      (to.held ??= []).push(data);
      this.heldEnds.add(to);
      return;
    }
    this.land(to, from, data);
  }

  /** The one place a chunk enters its receiver's inbox (bit flips happen here). */
  land(to: SimConnection, from: SimConnection, data: Uint8Array | null): void {
    if (from.sendCut || to.recvCut) return; // lost to a random close
    if (data === null) to.eof = true;
    else {
      this.faults.maybeFlipBits(to, from, data);
      to.inbox.push(data);
      to.inboxBytes += data.length;
    }
    to.wake();
    if (to.eof && from.eof) this.retire(to); // both FINs delivered: the pair is finished
  }

  /** A partition ended: held connects and chunks (in order, where open) arrive; `held` stays set until they land. */
  private releaseHeld(): void {
    const engine = this.world.engine;
    if (this.heldConnects.length > 0) {
      const attempts = this.heldConnects;
      this.heldConnects = [];
      for (const attempt of attempts) {
        // The connect goes through before its timeout: the timeout leaves no trace (no step).
        if (attempt.timeout !== null) engine.queue.remove(attempt.timeout);
        attempt.timeout = null;
        const owner = attempt.scope.incarnation;
        if (this.resumeAsOwner.has(owner)) engine.schedule(0, arriveConnect, attempt, EventTag.network, owner);
        else this.arrive(attempt);
      }
    }
    for (const end of [...this.heldEnds]) {
      const from = end.peer;
      if (end.reset || from === null) {
        end.held = null;
        this.heldEnds.delete(end);
        continue;
      }
      if (this.partitions.blocks(from.localIp, end.localIp)) continue;
      if (this.resumeAsOwner.has(end.owner)) engine.schedule(0, landHeldChunks, end, EventTag.network, end.owner);
      else landHeldChunks(end);
    }
  }

  // --- bookkeeping ------------------------------------------------------------------------------

  /** Local IPs of every live connection end, sorted numerically. */
  connectedIps(): string[] {
    return [...this.liveEndsByIp.keys()].sort(compareIps);
  }

  /** Wakes `end`; in an event of its owner when it must resume as itself and someone else runs. */
  wakeAsOwner(end: SimConnection): void {
    if (this.world.engine.currentOwner === end.owner || !this.resumeAsOwner.has(end.owner)) end.wake();
    else this.world.engine.schedule(0, wakeEnd, end, EventTag.network, end.owner);
  }

  /** Resets the pair `end` belongs to. Waits of `crashed` are dropped; everyone else's reject. */
  resetPair(end: SimConnection, crashed: Incarnation | null): void {
    const peer = end.peer;
    for (const e of peer === null ? [end] : [end, peer]) {
      if (e.reset) continue;
      e.reset = true;
      e.inbox = [];
      e.inboxBytes = 0;
      e.held = null;
      this.heldEnds.delete(e);
      if (e.owner === crashed || !e.owner.alive) e.dropRead();
      else this.wakeAsOwner(e);
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
    end.registered = true;
    this.liveEndsByIp.set(end.localIp, (this.liveEndsByIp.get(end.localIp) ?? 0) + 1);
  }

  private unregisterConnection(end: SimConnection): void {
    removeFrom(this.owned, end.owner, end);
    this.ephemeralInUse.delete(end.localAddr); // no-op for server ends (their address is the listener's)
    if (!end.registered) return; // retired, then reset: counted out once
    end.registered = false;
    const left = this.liveEndsByIp.get(end.localIp)! - 1;
    if (left === 0) this.liveEndsByIp.delete(end.localIp);
    else this.liveEndsByIp.set(end.localIp, left);
  }
}
