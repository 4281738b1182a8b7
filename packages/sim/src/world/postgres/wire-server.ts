/**
 * The Postgres wire protocol over `node:net` for one PGlite: what a Postgres server does for its
 * clients, run by a simulated process, so `pg` and `postgres` clients in other processes reach it
 * over the simulated network (latency, partitions, resets and partial reads apply).
 *
 * PGlite is one backend. Connections take turns the way `@electric-sql/pglite-socket` has them
 * take turns, made strict: a connection holds the backend from its first message until Postgres
 * answers it ReadyForQuery "idle", so another connection never runs inside its transaction or
 * between its Parse and its Sync. A connection that goes away while holding the backend has its
 * transaction rolled back. Each answer is written after the simulated time its disk I/O took.
 */
import { createServer, type Server, type Socket } from "node:net";

const SSL_REQUEST_CODE = 80877103;
const CANCEL_REQUEST_CODE = 80877102;
const PROTOCOL_3 = 196608;
const READY_FOR_QUERY = 0x5a; // 'Z'
const TERMINATE = 0x58; // 'X'
const ERROR_RESPONSE = 0x45; // 'E'
const SYNC_MESSAGE = Uint8Array.of(0x53, 0, 0, 0, 4);
const ROLLBACK_MESSAGE = queryMessage("ROLLBACK");

function queryMessage(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`);
  const out = Buffer.alloc(5 + text.length);
  out[0] = 0x51; // 'Q'
  out.writeInt32BE(4 + text.length, 1);
  text.copy(out, 5);
  return out;
}

/** The status byte of the last ReadyForQuery in `data` ('I', 'T', 'E'), or null if there is none. */
export function lastReadyStatus(data: Uint8Array): number | null {
  let status: number | null = null;
  let at = 0;
  while (at + 5 <= data.length) {
    const length = ((data[at + 1]! << 24) | (data[at + 2]! << 16) | (data[at + 3]! << 8) | data[at + 4]!) >>> 0;
    if (data[at] === READY_FOR_QUERY && length === 5 && at + 5 < data.length) status = data[at + 5]!;
    at += 1 + length;
  }
  return status;
}

/**
 * The most severe error severity in `data` that ends a backend ("PANIC" or "FATAL", from the
 * non-localized `V` field of an ErrorResponse), or null. Postgres answers a PANIC (a failed WAL
 * fsync) with an ErrorResponse and no ReadyForQuery; a real server's backend would be gone.
 */
export function fatalSeverity(data: Uint8Array): "PANIC" | "FATAL" | null {
  let found: "PANIC" | "FATAL" | null = null;
  let at = 0;
  while (at + 5 <= data.length) {
    const length = ((data[at + 1]! << 24) | (data[at + 2]! << 16) | (data[at + 3]! << 8) | data[at + 4]!) >>> 0;
    if (data[at] === ERROR_RESPONSE) {
      const end = Math.min(data.length, at + 1 + length);
      for (let f = at + 5; f < end && data[f] !== 0; ) {
        const code = data[f]!;
        const stop = data.indexOf(0, f + 1);
        if (stop < 0 || stop >= end) break;
        const value = Buffer.from(data.subarray(f + 1, stop)).toString("latin1");
        if (code === 0x56 /* 'V' */ && (value === "PANIC" || (value === "FATAL" && found === null))) found = value;
        f = stop + 1;
      }
    }
    at += 1 + length;
  }
  return found;
}

/** How the server runs a message: the engine applies it to PGlite and pays its disk time. */
export interface Backend {
  /** Runs one protocol message and returns Postgres's answer; rejects if Postgres died. */
  exec(message: Uint8Array): Promise<Uint8Array>;
}

class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  closed = false;
  /** Messages waiting for the backend. */
  readonly pending: Uint8Array[] = [];

  constructor(
    readonly socket: Socket,
    private readonly server: WireServer,
  ) {}

  onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const message = this.nextMessage();
      if (message === null) break;
      if (message === "skip") continue;
      if (message[0] === TERMINATE && this.started) {
        this.socket.end();
        this.server.dropped(this);
        return;
      }
      this.pending.push(message);
    }
    this.server.pump();
  }

  private nextMessage(): Uint8Array | "skip" | null {
    const b = this.buffer;
    if (!this.started) {
      if (b.length < 8) return null;
      const length = b.readInt32BE(0);
      if (b.length < length) return null;
      const code = b.readInt32BE(4);
      this.buffer = b.subarray(length);
      if (code === SSL_REQUEST_CODE) {
        this.socket.write("N"); // no TLS inside the simulation
        return "skip";
      }
      if (code === CANCEL_REQUEST_CODE) return "skip";
      if (code === PROTOCOL_3) this.started = true;
      return new Uint8Array(b.subarray(0, length));
    }
    if (b.length < 5) return null;
    const length = 1 + b.readInt32BE(1);
    if (b.length < length) return null;
    this.buffer = b.subarray(length);
    return new Uint8Array(b.subarray(0, length));
  }
}

export class WireServer {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  /** The connection the backend is serving (inside its transaction or extended-protocol exchange). */
  private holder: Connection | null = null;
  private running = false;
  private stopped = false;

  constructor(
    private readonly backend: Backend,
    /** Called once when Postgres dies under a message (a PANIC): the caller restarts it. */
    private readonly onFatal: (error: unknown) => void,
  ) {
    this.server = createServer((socket) => this.accept(socket));
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
  }

  /** Closes the listener and every connection (a stopped or crashed Postgres). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.server.close();
    for (const c of this.connections) c.socket.destroy();
    this.connections.clear();
  }

  private accept(socket: Socket): void {
    if (this.stopped) {
      socket.destroy();
      return;
    }
    const connection = new Connection(socket, this);
    this.connections.add(connection);
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => connection.onData(chunk));
    socket.on("error", () => this.dropped(connection));
    socket.on("close", () => this.dropped(connection));
  }

  dropped(connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    connection.pending.length = 0;
    this.connections.delete(connection);
    this.pump();
  }

  /** Serves waiting messages one at a time, the holder's first. */
  pump(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    void this.serve().finally(() => {
      this.running = false;
    });
  }

  private nextConnection(): Connection | null {
    if (this.holder !== null) return this.holder;
    for (const c of this.connections) if (c.pending.length > 0) return c;
    return null;
  }

  private async serve(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const connection = this.nextConnection();
      if (connection === null) return;
      if (connection.closed) {
        // It went away holding the backend: end what it left open before anyone else runs.
        this.holder = null;
        if (!(await this.run(SYNC_MESSAGE)) || !(await this.run(ROLLBACK_MESSAGE))) return;
        continue;
      }
      const message = connection.pending.shift();
      if (message === undefined) {
        if (this.holder === connection) {
          // It holds the backend and has sent nothing more yet: wait for it.
          return;
        }
        continue;
      }
      this.holder = connection;
      let answer: Uint8Array;
      try {
        answer = await this.backend.exec(message);
      } catch (error) {
        this.stop();
        this.onFatal(error);
        return;
      }
      if (!connection.closed && answer.length > 0) connection.socket.write(answer);
      const fatal = fatalSeverity(answer);
      if (fatal === "PANIC") {
        // Postgres stopped trusting its disk: every connection goes, and it starts again.
        this.stop();
        this.onFatal(new Error("Postgres PANIC"));
        return;
      }
      if (fatal === "FATAL") {
        // That connection's backend ended: close it and let the others run.
        this.holder = null;
        connection.socket.end();
        this.dropped(connection);
        continue;
      }
      if (lastReadyStatus(answer) === 0x49 /* 'I' */) this.holder = null;
    }
  }

  /** Runs a message for the server itself; false if Postgres died under it. */
  private async run(message: Uint8Array): Promise<boolean> {
    try {
      await this.backend.exec(message);
      return true;
    } catch (error) {
      this.stop();
      this.onFatal(error);
      return false;
    }
  }
}
