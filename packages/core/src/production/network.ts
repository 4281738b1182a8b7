/**
 * `NetworkProvider` on `node:net` (TCP). Addresses are `"ip:port"` (IPv4) or `"[ipv6]:port"`;
 * hostnames are not resolved. Every Node error surfaces as `IoError` with the Node code.
 */
import { connect as netConnect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { IoError } from "../errors.ts";
import type { Connection, Listener, NetworkProvider } from "../providers.ts";
import { formatAddr, parseAddr, toIoError } from "./address.ts";
import { gate, type Halt } from "./halt.ts";

/** Default number of received-but-unread bytes per connection before the socket is paused. */
export const DEFAULT_READ_HIGH_WATER_MARK = 1 << 20;

export interface ProductionNetworkOptions {
  /**
   * Received-but-unread bytes a connection buffers before it pauses the socket (TCP flow control
   * then slows the sender). Default `DEFAULT_READ_HIGH_WATER_MARK` (1 MiB).
   */
  readonly highWaterMark?: number;
  /** Disables Nagle's algorithm (TCP_NODELAY) on every connection. Default `true`. */
  readonly noDelay?: boolean;
  /**
   * The kill switch of the task this provider belongs to (set by `ProductionTask`): `bind` and
   * `connect` made after the task was aborted never settle, and late results are closed.
   */
  readonly halt?: Halt;
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** One end of a TCP connection. Created by `ProductionNetwork.connect` and `ProductionListener.accept`. */
export class ProductionConnection implements Connection {
  readonly localAddr: string;
  readonly peerAddr: string;
  private readonly chunks: Uint8Array[] = [];
  private bufferedBytes = 0;
  private paused = false;
  /** The peer closed its sending side (we saw its FIN). */
  private ended = false;
  private failure: IoError | undefined;
  private reader: Waiter<Uint8Array | null> | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly highWaterMark: number = DEFAULT_READ_HIGH_WATER_MARK,
    noDelay = true,
  ) {
    this.localAddr = formatAddr(socket.localAddress, socket.localPort);
    this.peerAddr = formatAddr(socket.remoteAddress, socket.remotePort);
    if (noDelay) socket.setNoDelay(true);
    socket.on("data", (data: Buffer) => this.onData(data));
    socket.on("end", () => {
      this.ended = true;
      this.serveReader();
    });
    socket.on("error", (error: Error) => {
      this.failure ??= toIoError(error, `connection ${this.describe()}`);
      this.serveReader();
    });
    socket.on("close", () => {
      if (!this.ended) {
        this.failure ??= new IoError("ECONNRESET", `connection ${this.describe()} closed before end of stream`);
      }
      this.serveReader();
    });
  }

  /**
   * Everything received and not yet read (one chunk, or the buffered chunks concatenated), or
   * `null` once the peer closed its side and every byte before it was read. After a reset or
   * another socket error it rejects with that `IoError` (unread bytes are dropped, as TCP does).
   * One read may wait at a time: a concurrent second read rejects with `IoError("EBUSY")`.
   */
  read(): Promise<Uint8Array | null> {
    if (this.reader !== undefined) {
      return Promise.reject(
        new IoError(
          "EBUSY",
          `a read on ${this.localAddr} is already waiting; read from one task at a time (a read raced against a timeout keeps waiting and takes the next bytes: keep awaiting it, or close the connection)`,
        ),
      );
    }
    return new Promise<Uint8Array | null>((resolve, reject) => {
      this.reader = { resolve, reject };
      this.serveReader();
    });
  }

  /** Resolves once the socket accepted the bytes (a copy is taken at once). */
  write(bytes: Uint8Array): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closing !== undefined || this.socket.writableEnded || this.socket.destroyed) {
      return Promise.reject(new IoError("EPIPE", `write on connection ${this.describe()} after it was closed`));
    }
    if (bytes.length === 0) return Promise.resolve();
    const copy = Buffer.from(bytes);
    return new Promise<void>((resolve, reject) => {
      this.socket.write(copy, (error?: Error | null) => {
        if (error) reject(toIoError(error, `write on connection ${this.describe()}`));
        else resolve();
      });
    });
  }

  /**
   * Half-closes: sends end-of-stream after the bytes already written. The peer may keep sending
   * (`read()` still works). Resolves when the data is flushed or the socket is gone; never rejects.
   */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      if (this.socket.destroyed) {
        resolve();
        return;
      }
      this.socket.once("close", () => resolve());
      this.socket.end(() => resolve());
    });
    return this.closing;
  }

  /** Closes both directions at once (not part of `Connection`); later reads fail with `ECONNABORTED`. */
  destroy(): void {
    this.abandon();
    this.socket.destroy();
  }

  /** Resets the connection (TCP RST; not part of `Connection`): the peer's reads fail with `ECONNRESET`. */
  reset(): void {
    this.abandon();
    this.socket.resetAndDestroy();
  }

  private abandon(): void {
    this.failure ??= new IoError("ECONNABORTED", `connection ${this.describe()} was destroyed by this side`);
    this.serveReader();
  }

  private describe(): string {
    return `${this.localAddr} -> ${this.peerAddr}`;
  }

  private onData(data: Buffer): void {
    this.chunks.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    this.bufferedBytes += data.byteLength;
    this.serveReader();
    if (!this.paused && this.bufferedBytes > this.highWaterMark) {
      this.paused = true;
      this.socket.pause();
    }
  }

  private serveReader(): void {
    const reader = this.reader;
    if (reader !== undefined) {
      if (this.failure !== undefined) {
        this.reader = undefined;
        this.chunks.length = 0;
        this.bufferedBytes = 0;
        reader.reject(this.failure);
      } else if (this.chunks.length > 0) {
        this.reader = undefined;
        reader.resolve(this.takeBuffered());
      } else if (this.ended) {
        this.reader = undefined;
        reader.resolve(null);
      }
    }
    if (this.paused && this.bufferedBytes <= this.highWaterMark) {
      this.paused = false;
      this.socket.resume();
    }
  }

  private takeBuffered(): Uint8Array {
    const chunks = this.chunks.splice(0);
    const total = this.bufferedBytes;
    this.bufferedBytes = 0;
    if (chunks.length === 1) return chunks[0]!;
    const out = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return out;
  }
}

/** A listening TCP socket. Incoming connections queue in arrival order until accepted. */
export class ProductionListener implements Listener {
  readonly localAddr: string;
  private readonly queued: ProductionConnection[] = [];
  private readonly acceptors: Waiter<Connection>[] = [];
  private closed = false;
  private failure: IoError | undefined;

  constructor(
    private readonly server: Server,
    highWaterMark: number = DEFAULT_READ_HIGH_WATER_MARK,
    noDelay = true,
  ) {
    const address = server.address() as AddressInfo;
    this.localAddr = formatAddr(address.address, address.port);
    server.on("connection", (socket: Socket) => {
      if (this.closed) {
        socket.destroy();
        return;
      }
      const connection = new ProductionConnection(socket, highWaterMark, noDelay);
      const acceptor = this.acceptors.shift();
      if (acceptor !== undefined) acceptor.resolve(connection);
      else this.queued.push(connection);
    });
    server.on("error", (error: Error) => {
      this.failure ??= toIoError(error, `listener ${this.localAddr}`);
      for (const acceptor of this.acceptors.splice(0)) acceptor.reject(this.failure);
    });
  }

  accept(): Promise<Connection> {
    const connection = this.queued.shift();
    if (connection !== undefined) return Promise.resolve(connection);
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(this.closedError());
    return new Promise<Connection>((resolve, reject) => {
      this.acceptors.push({ resolve, reject });
    });
  }

  /**
   * Stops listening at once (later connects are refused), destroys connections that were queued
   * but not accepted (TCP reset), and fails pending `accept()` calls with `IoError("EBADF")`. Connections
   * already accepted stay open.
   */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.server.close();
    for (const connection of this.queued.splice(0)) connection.reset();
    for (const acceptor of this.acceptors.splice(0)) acceptor.reject(this.closedError());
    return Promise.resolve();
  }

  private closedError(): IoError {
    return new IoError("EBADF", `listener ${this.localAddr} is closed`);
  }
}

export class ProductionNetwork implements NetworkProvider {
  private readonly highWaterMark: number;
  private readonly noDelay: boolean;
  private readonly halt: Halt | undefined;

  constructor(options: ProductionNetworkOptions = {}) {
    this.highWaterMark = options.highWaterMark ?? DEFAULT_READ_HIGH_WATER_MARK;
    if (!(this.highWaterMark >= 1)) {
      throw new RangeError(`highWaterMark must be a number of bytes >= 1, got ${String(options.highWaterMark)}`);
    }
    this.noDelay = options.noDelay ?? true;
    this.halt = options.halt;
  }

  /** A provider with the same options whose `bind`/`connect` stop with `halt` (for a task scope). */
  scoped(halt: Halt): ProductionNetwork {
    return new ProductionNetwork({ highWaterMark: this.highWaterMark, noDelay: this.noDelay, halt });
  }

  /** Listens on `ip:port` (port 0 picks a free port: read it from `localAddr`). */
  bind(addr: string): Promise<ProductionListener> {
    return gate(
      this.halt,
      () => this.listen(addr),
      (listener) => void listener.close(),
    );
  }

  /** Connects to `ip:port`; `IoError("ECONNREFUSED")` when nobody listens there. */
  connect(addr: string): Promise<ProductionConnection> {
    return gate(
      this.halt,
      () => this.open(addr),
      (connection) => connection.destroy(),
    );
  }

  private listen(addr: string): Promise<ProductionListener> {
    return new Promise<ProductionListener>((resolve, reject) => {
      const { ip, port } = parseAddr(addr, true);
      const server = createServer({ allowHalfOpen: true });
      const onError = (error: Error): void => reject(toIoError(error, `bind ${addr}`));
      server.once("error", onError);
      server.listen({ host: ip, port, exclusive: true }, () => {
        server.off("error", onError);
        resolve(new ProductionListener(server, this.highWaterMark, this.noDelay));
      });
    });
  }

  private open(addr: string): Promise<ProductionConnection> {
    return new Promise<ProductionConnection>((resolve, reject) => {
      const { ip, port } = parseAddr(addr, false);
      const socket = netConnect({ host: ip, port, allowHalfOpen: true });
      const onError = (error: Error): void => {
        socket.destroy();
        reject(toIoError(error, `connect to ${addr}`));
      };
      socket.once("error", onError);
      socket.once("connect", () => {
        socket.off("error", onError);
        resolve(new ProductionConnection(socket, this.highWaterMark, this.noDelay));
      });
    });
  }
}
