/**
 * Listening for any `net.Server` (so `http.Server` too) on the simulated network: `listen` binds
 * through the process's `NetworkProvider` and feeds each accepted connection to the server as a
 * `SimSocket` through its 'connection' event, which is how Node's http server takes sockets.
 */
import type { EventEmitter } from "node:events";
import type { Listener } from "@moonpool/core";
import { fromIoError, systemError } from "./errors.ts";
import { resolveHost, SimSocket, type NodeNetHost } from "./socket.ts";

interface Listening {
  readonly host: NodeNetHost;
  listener: Listener | null;
  address: { address: string; family: string; port: number } | null;
  closed: boolean;
  readonly sockets: Set<SimSocket>;
}

/** The simulated state of each server that listened inside a simulation. */
const simulated = new WeakMap<object, Listening>();

export function isSimulatedServer(server: object): boolean {
  return simulated.has(server);
}

interface ListenOptions {
  readonly port?: number | string;
  readonly host?: string;
  readonly path?: string;
}

function normalizeListenArgs(args: readonly unknown[]): { options: ListenOptions; callback?: () => void } {
  const last = args[args.length - 1];
  const callback = typeof last === "function" ? (last as () => void) : undefined;
  const first = args[0];
  if (first !== null && typeof first === "object") return { options: first as ListenOptions, callback };
  const host = typeof args[1] === "string" ? args[1] : undefined;
  return { options: { port: first as number | string | undefined, host }, callback };
}

/** Node's http server checks request timeouts on a real-time interval it starts on 'listening': not here. */
function dropRealTimeTracking(server: EventEmitter): void {
  for (const listener of server.listeners("listening")) {
    if ((listener as { name?: string }).name === "setupConnectionsTracking")
      server.removeListener("listening", listener as () => void);
  }
}

/**
 * `server.listen(port[, host][, backlog][, cb])` / `server.listen({ port, host }[, cb])` on the
 * simulated network. Port 0 is not supported: simulated services listen on known ports.
 */
export function simListen(server: EventEmitter, host: NodeNetHost, args: readonly unknown[]): void {
  const { options, callback } = normalizeListenArgs(args);
  const previous = simulated.get(server);
  if (previous !== undefined && !previous.closed)
    throw Object.assign(new Error("Listen method has been called more than once without closing."), {
      code: "ERR_SERVER_ALREADY_LISTEN",
    });
  if (typeof options.path === "string" && options.path !== "")
    throw new TypeError(`listen({ path }): the simulated network has no Unix sockets or pipes; listen on a port`);
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new RangeError(
      "listen(port): inside a simulation give a fixed port in 1..65535 (clients find it from the topology), " +
        `got ${String(options.port)}`,
    );
  }
  const ip = resolveHost(options.host === "0.0.0.0" || options.host === "::" ? undefined : options.host, host.ip);
  if (ip !== host.ip)
    throw new RangeError(
      `listen(${port}, ${JSON.stringify(options.host)}): ` +
        `a simulated process listens on its own IP ${host.ip} (or omit the host)`,
    );
  const state: Listening = { host, listener: null, address: null, closed: false, sockets: new Set() };
  simulated.set(server, state);
  dropRealTimeTracking(server);
  if (callback !== undefined) server.once("listening", callback);
  host.network.bind(`${ip}:${port}`).then(
    (listener) => {
      if (state.closed) {
        void listener.close().catch(() => {});
        return;
      }
      state.listener = listener;
      state.address = { address: ip, family: "IPv4", port };
      server.emit("listening");
      acceptLoop(server, state, listener);
    },
    (error: unknown) => {
      state.closed = true;
      server.emit("error", fromIoError(error, "listen", ip, port));
    },
  );
}

function acceptLoop(server: EventEmitter, state: Listening, listener: Listener): void {
  listener.accept().then(
    (conn) => {
      if (state.closed) {
        void conn.close().catch(() => {});
        return;
      }
      const socket = new SimSocket(state.host, conn);
      state.sockets.add(socket);
      socket.once("close", () => {
        state.sockets.delete(socket);
        maybeEmitClose(server, state);
      });
      (socket as unknown as { server: EventEmitter }).server = server;
      server.emit("connection", socket);
      acceptLoop(server, state, listener);
    },
    () => {}, // closed: no more connections
  );
}

function maybeEmitClose(server: EventEmitter, state: Listening): void {
  if (state.closed && state.sockets.size === 0 && state.listener !== null) {
    state.listener = null;
    process.nextTick(() => server.emit("close"));
  }
}

/** `server.close([cb])`: stops accepting; 'close' once every accepted socket closed (Node's order). */
export function simClose(server: EventEmitter, callback?: (error?: Error) => void): void {
  const state = simulated.get(server)!;
  if (state.closed || state.listener === null) {
    if (callback !== undefined)
      process.nextTick(
        callback,
        Object.assign(systemError("ERR_SERVER_NOT_RUNNING", "close"), { message: "Server is not running." }),
      );
    state.closed = true;
    return;
  }
  state.closed = true;
  if (callback !== undefined) server.once("close", callback);
  void state.listener.close().catch(() => {});
  maybeEmitClose(server, state);
}

export function simAddress(server: object): { address: string; family: string; port: number } | null {
  const state = simulated.get(server)!;
  return state.closed ? null : state.address;
}

export function simConnectionCount(server: object): number {
  return simulated.get(server)!.sockets.size;
}
