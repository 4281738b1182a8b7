/**
 * One logical connection to one remote address. An outgoing peer connects in the background,
 * reconnects with exponential backoff after a failure, and checks liveness with pings; an
 * incoming peer wraps one accepted connection and ends with it. Messages wait in two bounded
 * queues while no connection takes them: reliable ones survive a failed connect or a broken
 * connection and go out on the next one; unreliable ones are dropped then (their sender learns
 * it through `onDropped`). Every connection has a generation number, so a sender can tell whether
 * the connection that carried its message is the one that just broke.
 */
import { IoError, isAbortError, TimeoutError } from "../errors.ts";
import type { Connection, Providers } from "../providers.ts";
import type { PeerConfig } from "./config.ts";
import { TransportError, QueueFull } from "./errors.ts";
import type { FailureMonitor } from "./failure-monitor.ts";
import { PING_TOKEN } from "./token.ts";
import { encodeWireFrame, WireDecoder, type WireFrame } from "./wire.ts";

export interface OutgoingMessage {
  readonly frame: Uint8Array;
  /** Set by the sender to take a message back that has not been written yet. */
  cancelled?: boolean;
  /** Called when the message is handed to connection `generation`: from then on it may arrive. */
  onWritten?(generation: number): void;
  /** Called when an unreliable message is dropped unsent (or any message, when the peer closes). */
  onDropped?(reason: string): void;
}

/** What a peer needs from its transport. */
export interface PeerHost {
  readonly io: Providers;
  readonly monitor: FailureMonitor;
  deliver(frame: WireFrame, peer: Peer): void;
  /** Reports a connection-level event for the trace (connected, broken, ping miss...). */
  event(name: string, fields: Record<string, string | number>): void;
}

type DisconnectListener = (generation: number, reason: string) => void;

const PING = 0;
const PONG = 1;
/** Frames joined into one write at most (bytes), so one busy peer cannot build an unbounded buffer. */
const MAX_BATCH_BYTES = 64 * 1024;

function pingFrame(type: number, seq: number): Uint8Array {
  const payload = new Uint8Array(5);
  payload[0] = type;
  new DataView(payload.buffer).setUint32(1, seq, true);
  return encodeWireFrame(PING_TOKEN, payload);
}

function isNetworkTrouble(error: unknown): boolean {
  if (error instanceof IoError || error instanceof TimeoutError) return true;
  return error instanceof TransportError || isAbortError(error);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class Peer {
  private readonly reliable: OutgoingMessage[] = [];
  private readonly unreliable: OutgoingMessage[] = [];
  /** Ping and pong frames: unbounded (one per interval) and never counted against the queues. */
  private readonly control: Uint8Array[] = [];
  private connection: Connection | undefined;
  private wakeWriter: (() => void) | undefined;
  private wakeConnector: (() => void) | undefined;
  private readonly listeners = new Set<DisconnectListener>();
  private closedReason: string | undefined;
  /** The connection generation currently up (0: none yet). */
  generation = 0;
  private live = false;
  private bytesReceived = 0;
  private lastPongSeq = 0;
  private pingSeq = 0;

  constructor(
    private readonly host: PeerHost,
    readonly address: string,
    readonly config: PeerConfig,
    /** The accepted connection of an incoming peer; `undefined` for an outgoing one. */
    incoming?: Connection,
  ) {
    this.incoming = incoming !== undefined;
    if (incoming !== undefined) {
      host.io.task.spawn(`transport: incoming ${address}`, async () => {
        await this.runConnection(incoming);
        this.close(`connection from ${address} ended`);
      });
    } else {
      host.io.task.spawn(`transport: peer ${address}`, (scope) => this.connectLoop(scope));
    }
  }

  readonly incoming: boolean;

  get connected(): boolean {
    return this.live;
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  get queuedMessages(): { reliable: number; unreliable: number } {
    return { reliable: this.reliable.length, unreliable: this.unreliable.length };
  }

  /** Queues `message`. Throws `QueueFull` when its queue is at `maxQueueSize`. */
  send(message: OutgoingMessage, reliable: boolean): void {
    if (this.closedReason !== undefined) {
      message.onDropped?.(this.closedReason);
      return;
    }
    const queue = reliable ? this.reliable : this.unreliable;
    if (queue.length >= this.config.maxQueueSize) {
      const name = `${reliable ? "reliable" : "unreliable"} queue of peer ${this.address}`;
      throw new QueueFull(name, this.config.maxQueueSize);
    }
    queue.push(message);
    this.wake();
  }

  /** Calls `listener(generation, reason)` whenever a connection breaks. Returns the unsubscribe function. */
  onDisconnect(listener: DisconnectListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the peer: queued messages are dropped, the connection is closed, no reconnection. */
  close(reason = "peer closed"): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    const connection = this.connection;
    if (connection !== undefined) this.breakConnection(this.generation, reason);
    for (const queue of [this.reliable, this.unreliable]) this.dropAll(queue, reason);
    this.wakeConnector?.();
  }

  private wake(): void {
    const wake = this.wakeWriter;
    this.wakeWriter = undefined;
    wake?.();
  }

  private dropAll(queue: OutgoingMessage[], reason: string): void {
    const dropped = queue.splice(0);
    for (const message of dropped) if (!message.cancelled) message.onDropped?.(reason);
  }

  private async connectLoop(io: Providers): Promise<void> {
    let backoffMs = this.config.initialBackoffMs;
    while (this.closedReason === undefined) {
      let connection: Connection;
      try {
        connection = await this.connectOnce(io);
      } catch (error) {
        if (!isNetworkTrouble(error)) throw error;
        const reason = `connect to ${this.address} failed: ${describe(error)}`;
        this.host.monitor.setStatus(this.address, "failed", io.time.now());
        this.host.event("transport_connect_failed", { peer: this.address, backoffMs });
        this.dropAll(this.unreliable, reason);
        // Jitter keeps many clients of one restarted server from reconnecting in lockstep.
        await io.time.sleep(backoffMs / 2 + io.random.randomRatio() * (backoffMs / 2));
        backoffMs = Math.min(backoffMs * 2, this.config.maxBackoffMs);
        continue;
      }
      if (this.closedReason !== undefined) {
        await connection.close().catch(() => undefined);
        return;
      }
      backoffMs = this.config.initialBackoffMs;
      await this.runConnection(connection, io);
      if (this.closedReason === undefined) await io.time.sleep(this.config.initialBackoffMs);
    }
  }

  /** One connect attempt, bounded by `connectTimeoutMs`; a connect that completes after the timeout is closed. */
  private connectOnce(io: Providers): Promise<Connection> {
    let abandoned = false;
    const attempt = io.network.connect(this.address).then((connection) => {
      if (abandoned) void connection.close().catch(() => undefined);
      return connection;
    });
    return io.time.timeout(this.config.connectTimeoutMs, attempt).catch((error: unknown) => {
      abandoned = true;
      attempt.catch(() => undefined);
      throw error;
    });
  }

  /** Runs one connection until it breaks (or the peer closes). */
  private runConnection(connection: Connection, io: Providers = this.host.io): Promise<void> {
    const generation = ++this.generation;
    this.connection = connection;
    this.live = true;
    if (!this.incoming) this.host.monitor.setStatus(this.address, "available", io.time.now());
    this.host.event("transport_connected", { peer: this.address, generation, incoming: this.incoming ? 1 : 0 });
    const ended = new Promise<void>((resolve) => {
      const unsubscribe = this.onDisconnect((g) => {
        if (g !== generation) return;
        unsubscribe();
        resolve();
      });
    });
    void this.readLoop(connection, generation);
    void this.writeLoop(connection, generation);
    if (!this.incoming && this.config.pingIntervalMs > 0) {
      // A graceful shutdown rejects the loop's pending sleep with an AbortError: the loop just ends.
      this.pingLoop(io, generation).catch((error: unknown) => {
        if (!isAbortError(error)) throw error;
      });
    }
    return ended;
  }

  private breakConnection(generation: number, reason: string): void {
    if (generation !== this.generation || !this.live) return;
    const connection = this.connection!;
    this.live = false;
    this.connection = undefined;
    void connection.close().catch(() => undefined);
    if (!this.incoming) this.host.monitor.setStatus(this.address, "failed", this.host.io.time.now());
    this.host.event("transport_disconnected", { peer: this.address, generation, reason });
    this.dropAll(this.unreliable, reason);
    this.control.length = 0;
    this.wake();
    for (const listener of [...this.listeners]) listener(generation, reason);
  }

  private async readLoop(connection: Connection, generation: number): Promise<void> {
    const decoder = new WireDecoder(this.config.maxPayloadBytes);
    try {
      for (;;) {
        const chunk = await connection.read();
        if (generation !== this.generation || !this.live) return;
        if (chunk === null) return this.breakConnection(generation, `${this.address} closed the connection`);
        this.bytesReceived += chunk.length;
        decoder.push(chunk);
        for (let frame = decoder.next(); frame !== undefined; frame = decoder.next()) {
          if (frame.token === PING_TOKEN) this.onPing(frame.payload);
          else this.host.deliver(frame, this);
          if (generation !== this.generation || !this.live) return;
        }
      }
    } catch (error) {
      if (!isNetworkTrouble(error)) throw error;
      this.breakConnection(generation, `reading from ${this.address}: ${describe(error)}`);
    }
  }

  private async writeLoop(connection: Connection, generation: number): Promise<void> {
    try {
      for (;;) {
        if (generation !== this.generation || !this.live) return;
        const batch = this.takeBatch(generation);
        if (batch === undefined) {
          await new Promise<void>((resolve) => (this.wakeWriter = resolve));
          continue;
        }
        await connection.write(batch);
      }
    } catch (error) {
      if (!isNetworkTrouble(error)) throw error;
      this.breakConnection(generation, `writing to ${this.address}: ${describe(error)}`);
    }
  }

  /** Control frames, then reliable, then unreliable messages, joined into one buffer. */
  private takeBatch(generation: number): Uint8Array | undefined {
    const frames: Uint8Array[] = [];
    let bytes = 0;
    const take = (frame: Uint8Array): void => {
      frames.push(frame);
      bytes += frame.length;
    };
    while (this.control.length > 0 && bytes < MAX_BATCH_BYTES) take(this.control.shift()!);
    for (const queue of [this.reliable, this.unreliable]) {
      while (queue.length > 0 && bytes < MAX_BATCH_BYTES) {
        const message = queue.shift()!;
        if (message.cancelled) continue;
        take(message.frame);
        message.onWritten?.(generation);
      }
    }
    if (frames.length === 0) return undefined;
    if (frames.length === 1) return frames[0];
    const out = new Uint8Array(bytes);
    let at = 0;
    for (const frame of frames) {
      out.set(frame, at);
      at += frame.length;
    }
    return out;
  }

  private onPing(payload: Uint8Array): void {
    if (payload.length < 5) return;
    const seq = new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getUint32(1, true);
    if (payload[0] === PING) {
      this.control.push(pingFrame(PONG, seq));
      this.wake();
    } else if (payload[0] === PONG) {
      this.lastPongSeq = Math.max(this.lastPongSeq, seq);
    }
  }

  /** Outgoing peers only: a connection that answers neither pings nor anything else is broken. */
  private async pingLoop(io: Providers, generation: number): Promise<void> {
    let misses = 0;
    for (;;) {
      await io.time.sleep(this.config.pingIntervalMs);
      if (generation !== this.generation || !this.live) return;
      const seq = ++this.pingSeq;
      const receivedBefore = this.bytesReceived;
      this.control.push(pingFrame(PING, seq));
      this.wake();
      await io.time.sleep(this.config.pingTimeoutMs);
      if (generation !== this.generation || !this.live) return;
      // Any byte received counts as a sign of life: a busy peer may answer the ping late.
      if (this.lastPongSeq >= seq || this.bytesReceived > receivedBefore) {
        misses = 0;
        continue;
      }
      misses += 1;
      this.host.event("transport_ping_missed", { peer: this.address, misses });
      if (misses > this.config.toleratedPingMisses) {
        return this.breakConnection(generation, `${this.address} missed ${misses} pings in a row`);
      }
    }
  }
}
