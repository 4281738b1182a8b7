/**
 * The two socket objects user code holds: `SimConnection` (one end of a byte stream) and
 * `SimListener`. They keep their own buffers and waits; everything that crosses the network
 * (sending, delivery, faults) is decided by their `SimNetwork`.
 */
import { IoError, type Connection, type Listener } from "@moonpool/core";
import { Incarnation, never, type PendingOp } from "../../engine/incarnation.ts";
import type { ActorScope } from "../scope.ts";
import { ipOf } from "./address.ts";
import { takeBytes } from "./faults.ts";
import type { SimNetwork } from "./network.ts";
import { pairKey } from "./partitions.ts";

export function isPending(op: PendingOp): boolean {
  return op.owner.isPending(op);
}

/** Whether code of `scope` may still observe results (a dead incarnation or task never resumes). */
function scopeAlive(scope: ActorScope): boolean {
  return scope.incarnation.alive && (scope.taskState === null || scope.taskState.alive);
}

/** One shared resolved promise for every completed write: a write is the hottest call here. */
const DONE: Promise<void> = Promise.resolve();

export function settled<T>(scope: ActorScope, value: T): Promise<T> {
  if (!scopeAlive(scope)) return never<T>();
  return value === undefined ? (DONE as Promise<T>) : Promise.resolve(value);
}

export function failed<T>(scope: ActorScope, error: unknown): Promise<T> {
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

/** One end of a simulated connection. Fields are internal state shared with `SimNetwork`. */
export class SimConnection implements Connection {
  /** The other end; null once the pair was reset, so neither end keeps the other alive. */
  peer: SimConnection | null = null;
  /** Delivered chunks not yet read, in order, and their total length. */
  inbox: Uint8Array[] = [];
  inboxBytes = 0;
  /** The peer's FIN was delivered (or a random close cut our receiving side): once the inbox is drained, reads return null. */
  eof = false;
  /** Our sending side is closed (`close()` was called). */
  closed = false;
  /** The connection was reset (peer crashed, listener closed before accept, or an explicit random close). */
  reset = false;
  /** Delivery time (µs) of the last chunk sent from this end: the FIFO floor of this direction. */
  lastDeliveryUs = -Infinity;
  /** Exempt from clogs, random close, bit flips and partial I/O (both ends are marked together). */
  stable = false;
  /** A silent random close cut our sending side: writes fail, bytes still in flight from here are lost. */
  sendCut = false;
  /** A silent random close cut our receiving side: we read end of stream, later bytes are lost. */
  recvCut = false;
  /** Reads (writes) of this end are clogged until this simulated time (µs). */
  readClogUntilUs = 0;
  writeClogUntilUs = 0;
  /** Chunks (null: the FIN) that met a partition on their way to this end, in order; null when none is held. */
  held: (Uint8Array | null)[] | null = null;
  /** Counted in the network's live ends (from creation until retired or reset). */
  registered = false;
  private key: string | null = null;
  /** Bytes written (read) so far by this end: a trace event's `offset`, so a read names the writes it took. */
  private sentBytes = 0;
  private readBytes = 0;
  private pendingRead: PendingOp<Uint8Array | null> | null = null;

  constructor(
    readonly net: SimNetwork,
    /** The scope whose incarnation and task own this end's waits. */
    readonly scope: ActorScope,
    readonly localAddr: string,
    readonly peerAddr: string,
    /** Shared by both ends of the pair; names the connection in `sim_fault` events. */
    readonly connectionId: number,
    /** `ipOf(localAddr)` and `ipOf(peerAddr)`, passed in: the caller holds them already. */
    readonly localIp: string = ipOf(localAddr),
    readonly peerIp: string = ipOf(peerAddr),
  ) {}

  /**
   * `pairKey(localIp, peerIp)`, made at its first use (partitions and per-pair latency are keyed by
   * it) and kept: a key built per lookup is a new string to flatten and hash on every delivery.
   */
  get pairKey(): string {
    this.key ??= pairKey(this.localIp, this.peerIp);
    return this.key;
  }

  get owner(): Incarnation {
    return this.scope.incarnation;
  }

  /**
   * What is buffered (everything, or a partial read), or waits for the next delivery. One read
   * may wait at a time: a second concurrent read rejects with `IoError("EBUSY")` (two readers of
   * one stream is a bug). A read never returns zero bytes before the end of the stream.
   */
  read(): Promise<Uint8Array | null> {
    if (this.reset) return failed(this.scope, this.resetError());
    const net = this.net;
    const faulty = net.endFaults && !this.stable;
    if (faulty && net.faults.randomClose(this) === "explicit") return failed(this.scope, this.explicitResetError());
    // A clog already started runs its course, even after recovery mode switched faults off.
    const clogged = this.readClogUntilUs > net.world.engine.nowUs || (faulty && net.faults.readClogged(this));
    if (!clogged) {
      if (this.inboxBytes > 0) return settled(this.scope, this.takeReadable());
      if (this.eof) return settled(this.scope, null);
    }
    if (this.pendingRead !== null && isPending(this.pendingRead)) {
      return failed(
        this.scope,
        new IoError(
          "EBUSY",
          `a read on ${this.localAddr} is already waiting; read from one task at a time (a read raced against a timeout keeps waiting and takes the next bytes: keep awaiting it, or close the connection)`,
        ),
      );
    }
    const op = this.owner.begin<Uint8Array | null>(this.scope.taskState, true, "read on", this.localAddr);
    this.pendingRead = op;
    if (op === null) return never();
    if (clogged) net.faults.wakeAt(this, this.readClogUntilUs);
    return op.promise;
  }

  /**
   * Copies `bytes` and queues them; resolves at once (no backpressure), or when a write clog
   * ends. A write on a side cut by a random close fails with EPIPE.
   */
  write(bytes: Uint8Array): Promise<void> {
    if (this.reset) return failed(this.scope, this.resetError());
    if (this.closed)
      return failed(
        this.scope,
        new IoError("EPIPE", `write on ${this.localAddr} after close(); open a new connection`),
      );
    if (this.sendCut) return failed(this.scope, this.sendCutError());
    const net = this.net;
    const faulty = net.endFaults && !this.stable;
    if (faulty) {
      if (net.faults.randomClose(this) === "explicit") return failed(this.scope, this.explicitResetError());
      // Silently closed by this very call: the bytes go down with the cleared send buffer.
      if (this.sendCut) return settled(this.scope, undefined);
    }
    const clogged = this.writeClogUntilUs > net.world.engine.nowUs || (faulty && net.faults.writeClogged(this));
    if (bytes.length > 0) {
      net.send(this, new Uint8Array(bytes)); // copy: the caller may reuse its buffer
      this.traceBytes("net_send", bytes.length);
    }
    return clogged ? net.faults.waitForWriteClog(this) : settled(this.scope, undefined);
  }

  /** Graceful: the FIN follows the last queued byte. Closing twice (or after a reset) is harmless. */
  close(): Promise<void> {
    if (!this.closed && !this.reset) {
      this.closed = true;
      if (!this.sendCut) this.net.send(this, null);
    }
    return settled(this.scope, undefined);
  }

  /**
   * Takes what one read returns: everything buffered, concatenated, or (partial read fault) a
   * strict prefix of at least one byte, the rest staying buffered in order.
   */
  takeReadable(): Uint8Array {
    const split = this.net.endFaults && !this.stable ? this.net.faults.partialReadBytes(this) : 0;
    if (split > 0) {
      this.inboxBytes -= split;
      this.traceBytes("net_recv", split);
      return takeBytes(this.inbox, split);
    }
    const total = this.inboxBytes;
    this.traceBytes("net_recv", total);
    this.inboxBytes = 0;
    // One chunk (the common case): pop it and keep the array; a fresh array per read showed in GC time.
    if (this.inbox.length === 1) return this.inbox.pop()!;
    const out = concat(this.inbox, total);
    this.inbox = [];
    return out;
  }

  /**
   * A debug fact for the replay's story: bytes this end wrote or read, with the connection and the
   * stream offset they start at, so a read is linked to the writes whose bytes it took (the causal
   * slice). Only built when debug is captured (the default info level skips it, so hashes and speed
   * are unchanged).
   */
  private traceBytes(name: "net_send" | "net_recv", bytes: number): void {
    const send = name === "net_send";
    const offset = send ? this.sentBytes : this.readBytes;
    if (send) this.sentBytes += bytes;
    else this.readBytes += bytes;
    const world = this.net.world;
    if (!world.trace.captures("debug")) return;
    const connectionId = this.connectionId;
    world.emit(
      this.scope.actor,
      "debug",
      name,
      send
        ? { to: this.peerAddr, bytes, from: this.localAddr, connectionId, offset }
        : { from: this.peerAddr, bytes, to: this.localAddr, connectionId, offset },
    );
  }

  /** Whether a read waits for bytes that a delivery now would hand it at once. */
  waitsForBytes(): boolean {
    const op = this.pendingRead;
    return (
      op !== null &&
      isPending(op) &&
      !this.reset &&
      this.inboxBytes === 0 &&
      this.readClogUntilUs <= this.net.world.engine.nowUs
    );
  }

  /** Settles a waiting read after a delivery, a reset or the end of a read clog. */
  wake(): void {
    const op = this.pendingRead;
    if (op === null) return;
    this.pendingRead = null;
    // A read that was rejected (graceful shutdown) or dropped no longer waits: what arrived stays
    // buffered for the next read instead of going to a promise nobody awaits.
    if (!isPending(op)) return;
    if (this.reset) Incarnation.reject(op, this.resetError());
    else if (this.readClogUntilUs > this.net.world.engine.nowUs)
      this.pendingRead = op; // the clog's end wakes it
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

  explicitResetError(): IoError {
    return new IoError(
      "ECONNRESET",
      `connection ${this.localAddr} <-> ${this.peerAddr} was reset (simulated random connection failure, explicit)`,
    );
  }

  sendCutError(): IoError {
    return new IoError(
      "EPIPE",
      `the sending side of ${this.localAddr} -> ${this.peerAddr} was closed by a simulated random close; open a new connection`,
    );
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
