/**
 * `SimSocket`: a `net.Socket`-compatible duplex over one connection of a `NetworkProvider`, so
 * Node code (and Node's own http client and server) runs over the simulated network with its
 * latency, partial reads, partitions, resets and crashes. Idle timeouts run on the provider's time.
 */
import { Duplex } from "node:stream";
import type { Connection, NetworkProvider, TimeProvider } from "@moonpool/core";
import { runAdopted } from "../../engine/escape-guard.ts";
import type { Incarnation } from "../../engine/incarnation.ts";
import type { World } from "../world.ts";
import { fromIoError, lookupError, systemError } from "./errors.ts";

/** What sockets and servers of one simulated process use: its network, its clock and its IP. */
export interface NodeNetHost {
  readonly network: NetworkProvider;
  readonly time: TimeProvider;
  readonly ip: string;
  /** The world and incarnation the host belongs to (`registerNodeHost` records the host on the incarnation). */
  readonly world: World;
  readonly incarnation: Incarnation;
}

export interface SimConnectOptions {
  readonly port?: number | string;
  readonly host?: string;
  readonly path?: string;
  readonly timeout?: number;
  readonly noDelay?: boolean;
  readonly keepAlive?: boolean;
}

type ConnectArgs =
  | [options: SimConnectOptions, listener?: () => void]
  | [port: number | string, host?: string | (() => void), listener?: () => void];

/** Node's argument forms: `(options[, cb])`, `(port[, host][, cb])`. */
export function normalizeConnectArgs(args: readonly unknown[]): { options: SimConnectOptions; listener?: () => void } {
  const last = args[args.length - 1];
  const listener = typeof last === "function" ? (last as () => void) : undefined;
  const first = args[0];
  if (first !== null && typeof first === "object") return { options: first as SimConnectOptions, listener };
  const host = typeof args[1] === "string" ? args[1] : undefined;
  return { options: { port: first as number | string, host }, listener };
}

function splitAddr(addr: string): { address: string; port: number } {
  const at = addr.lastIndexOf(":");
  return { address: addr.slice(0, at), port: Number(addr.slice(at + 1)) };
}

/** `localhost` and the loopback addresses mean this process's own IP: the simulated network has no loopback. */
export function resolveHost(host: string | undefined, ownIp: string): string | null {
  if (host === undefined || host === "" || host === "localhost" || host === "127.0.0.1" || host === "::1") return ownIp;
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) ? host : null;
}

/** A failed name lookup: the socket fails with `error` (getaddrinfo's), not with a connect error. */
class LookupFailed extends Error {
  constructor(readonly error: Error) {
    super(error.message);
  }
}

export class SimSocket extends Duplex {
  connecting = false;
  /** Idle timeout in ms (0: none), as `net.Socket#timeout`. */
  timeout: number | undefined = undefined;
  bytesRead = 0;
  private written = 0;
  private conn: Connection | null = null;
  private connected: Promise<Connection> | null = null;
  private reading = false;
  private timeoutGeneration = 0;
  private lastActivityMs = 0;
  private hadError = false;
  /** Cuts what one read returns into parts handed over one `nextTick` apart (`splitReads`). */
  private splitRead: ((chunk: Buffer) => Buffer[]) | null = null;

  constructor(
    /** The simulated process this socket belongs to. */
    readonly host: NodeNetHost,
    connection?: Connection,
  ) {
    // Node's sockets emit 'close' themselves, with `hadError`.
    super({ allowHalfOpen: false, emitClose: false, autoDestroy: true, decodeStrings: true });
    if (connection !== undefined) this.attach(connection);
  }

  /** `socket.connect(options[, cb])` / `socket.connect(port[, host][, cb])`. */
  connect(...args: ConnectArgs): this {
    const { options, listener } = normalizeConnectArgs(args);
    if (this.conn !== null || this.connecting)
      throw systemError("EISCONN", "connect", options.host, Number(options.port));
    if (listener !== undefined) this.once("connect", listener);
    if (options.timeout !== undefined) this.setTimeout(options.timeout);
    if (typeof options.path === "string" && options.path !== "") {
      this.fail(
        systemError(
          "EINVAL",
          "connect",
          options.path,
          undefined,
          "the simulated network has no Unix sockets or pipes; connect to ip:port",
        ),
      );
      return this;
    }
    const port = Number(options.port);
    const ip = resolveHost(options.host, this.host.ip);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new RangeError(`Port should be > 0 and < 65536. Received ${String(options.port)}.`);
    }
    this.connecting = true;
    this.connected = (
      ip !== null ? this.host.network.connect(`${ip}:${port}`) : this.lookupAndConnect(options.host!, port)
    ).then(
      (conn) => {
        this.connecting = false;
        if (this.destroyed) {
          void conn.close().catch(() => {});
          return conn;
        }
        this.attach(conn);
        this.fromIo("'connect' listener", () => {
          this.emit("connect");
          this.emit("ready");
        });
        return conn;
      },
      (error: unknown) => {
        this.connecting = false;
        if (!this.destroyed)
          this.fail(error instanceof LookupFailed ? error.error : fromIoError(error, "connect", ip ?? undefined, port));
        throw error;
      },
    );
    this.connected.catch(() => {});
    return this;
  }

  /**
   * A host name: looked up in the seed's name table first, as Node's `net.connect` calls
   * `dns.lookup` (its delay and faults apply), with Node's `'lookup'` event.
   */
  private async lookupAndConnect(name: string, port: number): Promise<Connection> {
    await null; // Node reports the lookup after connect() returned, when its listeners exist.
    const dns = this.host.world.dns;
    const answer = dns?.answer(this.host.incarnation.actor, name, this.host.world.nowMs) ?? null;
    if (answer === null || answer.error !== null) {
      const error = lookupError(answer?.error ?? "ENOTFOUND", name);
      if (answer !== null && answer.delayMs > 0) await this.host.time.sleep(answer.delayMs);
      this.fromIo("'lookup' listener", () => this.emit("lookup", error, undefined, undefined, name));
      throw new LookupFailed(error);
    }
    if (answer.delayMs > 0) await this.host.time.sleep(answer.delayMs);
    const address = answer.ips[0]!;
    this.fromIo("'lookup' listener", () => this.emit("lookup", null, address, 4, name));
    if (this.destroyed) throw new LookupFailed(systemError("ECANCELED", "connect", address, port));
    return this.host.network.connect(`${address}:${port}`);
  }

  private attach(conn: Connection): void {
    this.conn = conn;
    this.connected ??= Promise.resolve(conn);
    this.touch();
    // Like Node, a connected socket reads at once (up to its high-water mark, even before a
    // 'data' listener), so a reset or the peer's end is noticed without a reader.
    if (this.reading) {
      // A read asked for before the connection existed (the stream waits for its push).
      this.reading = false;
      this._read();
    } else if (!this.isPaused()) this.read(0);
  }

  /**
   * Runs stream machinery that may call user listeners synchronously ('data', 'drain', 'connect')
   * from a provider's promise callback. In Node these run from a native I/O callback, where a throw
   * is an uncaught exception of the process: reported as one, not as a rejection of our callback.
   */
  private fromIo(where: string, body: () => void): void {
    try {
      body();
    } catch (error) {
      this.host.world.uncaught(this.host.incarnation, error, `a socket ${where}`);
    }
  }

  private fail(error: Error): void {
    this.hadError = true;
    this.destroy(error);
  }

  private touch(): void {
    this.lastActivityMs = this.host.time.now();
  }

  /**
   * Hands each read over in the parts `split` cuts it into, the next part only after the microtask
   * and `nextTick` queues of the previous one drained (what a native socket's HTTP/2 session gives
   * between frames: `http2-frames.ts`).
   */
  splitReads(split: (chunk: Buffer) => Buffer[]): void {
    this.splitRead = split;
  }

  override _read(): void {
    if (this.reading) return;
    this.reading = true;
    const conn = this.conn;
    if (conn === null) return; // attach() starts it
    const pump = (): void => {
      conn.read().then(
        (chunk) => {
          if (this.destroyed) return;
          this.touch();
          if (chunk === null) {
            this.reading = false;
            this.fromIo("'end' listener", () => this.push(null));
            return;
          }
          this.bytesRead += chunk.length;
          const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
          const parts = this.splitRead === null ? [bytes] : this.splitRead(bytes);
          const deliver = (index: number): void => {
            if (this.destroyed) return;
            let more = false;
            this.fromIo("'data' listener", () => {
              more = this.push(parts[index]);
            });
            if (index + 1 < parts.length) process.nextTick(deliver, index + 1);
            else if (more) pump();
            else this.reading = false;
          };
          deliver(0);
        },
        (error: unknown) => {
          this.reading = false;
          if (!this.destroyed) this.fail(fromIoError(error, "read"));
        },
      );
    };
    pump();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const send = (conn: Connection): void => {
      // Nothing to hand over (Node's http ends a message with an empty write): done at once, as
      // in Node, rather than after a write clog, which would let the reply overtake 'finish'. It
      // is no activity for the idle timeout either: Node 24's http no longer makes that write, and
      // the timeline must not depend on the Node version.
      if (chunk.length === 0) return callback();
      this.touch();
      conn.write(chunk).then(
        () => {
          this.written += chunk.length;
          this.fromIo("write callback", () => callback());
        },
        (error: unknown) => this.fromIo("write callback", () => callback(fromIoError(error, "write"))),
      );
    };
    if (this.conn !== null) send(this.conn);
    else if (this.connected !== null)
      this.connected.then(send, () =>
        callback(systemError("EPIPE", "write", undefined, undefined, "the connect failed")),
      );
    else
      callback(
        systemError("EPIPE", "write", undefined, undefined, "the socket is not connected; call connect() first"),
      );
  }

  override _final(callback: (error?: Error | null) => void): void {
    const finish = (conn: Connection): void => {
      conn.close().then(
        () => callback(),
        (error: unknown) => callback(fromIoError(error, "shutdown")),
      );
    };
    if (this.conn !== null) finish(this.conn);
    else if (this.connected !== null) this.connected.then(finish, () => callback());
    else callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.timeoutGeneration++;
    this.connecting = false;
    if (error !== null) this.hadError = true;
    // The provider's close is graceful: the peer reads the end of the stream after what was sent.
    if (this.conn !== null) void this.conn.close().catch(() => {});
    callback(error);
    process.nextTick(() => this.emit("close", this.hadError));
  }

  /** `socket.setTimeout(ms[, cb])`: 'timeout' after `ms` of simulated time without reads or writes; 0 turns it off. */
  setTimeout(timeoutMs: number, callback?: () => void): this {
    if (!(timeoutMs >= 0) || !Number.isFinite(timeoutMs)) {
      throw new RangeError(
        `The value of "msecs" is out of range. It must be a non-negative finite number. Received ${String(timeoutMs)}`,
      );
    }
    this.timeout = timeoutMs;
    const generation = ++this.timeoutGeneration;
    if (callback !== undefined) {
      if (timeoutMs === 0) this.removeListener("timeout", callback);
      else this.once("timeout", callback);
    }
    if (timeoutMs === 0 || this.destroyed) return this;
    this.touch();
    const time = this.host.time;
    const wait = (delayMs: number): void => {
      time.sleep(delayMs).then(
        () => {
          if (generation !== this.timeoutGeneration || this.destroyed) return;
          const remainingMs = timeoutMs - (time.now() - this.lastActivityMs);
          // Below a microsecond the clock cannot move: that is the deadline.
          if (remainingMs < 0.001) {
            this.emit("timeout");
            // Like Node: the timer is re-armed only by the next activity or setTimeout call.
            this.timeoutGeneration++;
          } else wait(remainingMs);
        },
        () => {}, // the process is shutting down: nobody waits for this timer any more
      );
    };
    wait(timeoutMs);
    return this;
  }

  setNoDelay(_noDelay?: boolean): this {
    return this;
  }

  setKeepAlive(_enable?: boolean, _initialDelayMs?: number): this {
    return this;
  }

  /** Simulated sockets never hold the real event loop open. */
  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  get bytesWritten(): number {
    return this.written;
  }

  get pending(): boolean {
    return this.conn === null || this.connecting;
  }

  get readyState(): "opening" | "open" | "readOnly" | "writeOnly" | "closed" {
    if (this.connecting) return "opening";
    if (this.conn === null || this.destroyed) return "closed";
    if (this.readable && this.writable) return "open";
    return this.readable ? "readOnly" : this.writable ? "writeOnly" : "closed";
  }

  get localAddress(): string | undefined {
    return this.conn === null ? undefined : splitAddr(this.conn.localAddr).address;
  }
  get localPort(): number | undefined {
    return this.conn === null ? undefined : splitAddr(this.conn.localAddr).port;
  }
  get localFamily(): string | undefined {
    return this.conn === null ? undefined : "IPv4";
  }
  get remoteAddress(): string | undefined {
    return this.conn === null ? undefined : splitAddr(this.conn.peerAddr).address;
  }
  get remotePort(): number | undefined {
    return this.conn === null ? undefined : splitAddr(this.conn.peerAddr).port;
  }
  get remoteFamily(): string | undefined {
    return this.conn === null ? undefined : "IPv4";
  }

  address(): { address: string; family: string; port: number } | Record<string, never> {
    if (this.conn === null) return {};
    return { ...splitAddr(this.conn.localAddr), family: "IPv4" };
  }
}

// Node's native HTTP/2 session reads, writes and ends its socket from the real event loop between
// steps: those calls run as the socket's process, so what they put on the simulated network is its.
for (const key of ["_read", "_write", "_final", "_destroy"] as const) {
  const method = SimSocket.prototype[key] as (...args: unknown[]) => void;
  Object.defineProperty(SimSocket.prototype, key, {
    configurable: true,
    writable: true,
    value: function adopted(this: SimSocket, ...args: unknown[]): void {
      runAdopted(() => method.apply(this, args));
    },
  });
}
