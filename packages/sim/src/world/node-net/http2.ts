/**
 * Routes `node:http2` to the simulated network while a seed runs. Node's own HTTP/2 session runs
 * unchanged: `http2.createServer()` listens through the patched `net.Server#listen` and
 * `http2.connect()` dials through the patched `net.connect`, so both sides sit on simulated sockets.
 * The session writes from native immediates, hence `useNativeHttp2()` before either is made.
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import { markTakeover, nativeOf } from "../../engine/escape-guard.ts";
import { currentNodeHost, markNodeUser, processOf, useNativeHttp2 } from "./ambient.ts";
import { recordOwner } from "./between-steps.ts";
import { Http2FrameBoundaries } from "./http2-frames.ts";
import { simulatedTimeouts } from "./http2-timeouts.ts";
import { simConnect } from "./install.ts";
import { type NodeNetHost, SimSocket } from "./socket.ts";

type AnyFunction = (...args: any[]) => any;
type Http2Module = typeof import("node:http2");

const require = createRequire(import.meta.url);

function patch(target: object, key: string, make: (previous: AnyFunction) => AnyFunction): void {
  const previous = (target as Record<string, AnyFunction>)[key]!;
  const enumerable = Object.getOwnPropertyDescriptor(target, key)?.enumerable ?? false;
  const value = make(previous);
  markTakeover(value, previous);
  Object.defineProperty(target, key, { configurable: true, writable: true, enumerable, value });
}

/** Has a simulated socket hand its reads to the session one frame at a time (`http2-frames.ts`). */
function inFrames(socket: unknown, side: "client" | "server"): void {
  if (!(socket instanceof SimSocket)) return;
  const frames = new Http2FrameBoundaries(side);
  socket.splitReads((chunk) => frames.split(chunk));
}

/**
 * `http2.connect(authority[, options][, listener])` with a simulated socket unless the caller brings
 * one (`@grpc/grpc-js` connects its own through `net.connect`); either way it reads frame by frame.
 */
function simConnectArgs(host: NonNullable<ReturnType<typeof currentNodeHost>>, args: unknown[]): unknown[] {
  const [authority, second, third] = args;
  const options = second !== null && typeof second === "object" ? (second as Record<string, unknown>) : {};
  const listener = typeof second === "function" ? second : third;
  const own = options.createConnection;
  if (typeof own === "function") {
    const createConnection = function createConnection(this: unknown, ...connectArgs: unknown[]) {
      const socket = (own as AnyFunction).apply(this, connectArgs) as unknown;
      inFrames(socket, "client");
      return socket;
    };
    return [authority, { ...options, createConnection }, listener];
  }
  const target = authority instanceof URL ? authority : new URL(String(authority));
  if (target.protocol !== "http:") {
    throw new Http2TlsInSimulation(
      `http2.connect(${JSON.stringify(String(authority))}): a seed has no TLS; connect with "http://" ` +
        "(h2c) to the simulated server instead",
    );
  }
  const port = target.port === "" ? 80 : Number(target.port);
  const createConnection = () => {
    const socket = simConnect(host, [{ host: target.hostname, port }]);
    inFrames(socket, "client");
    return socket;
  };
  return [authority, { ...options, createConnection }, listener];
}

/** A seed has no TLS: h2 over TLS would need certificates and a handshake that test nothing here. */
export class Http2TlsInSimulation extends Error {
  readonly code = "ERR_MOONPOOL_HTTP2_TLS";
  override name = "Http2TlsInSimulation";
}

/**
 * Node stamps each HTTP/2 response with a `date` header read from the real clock (a cache refreshed by a
 * real timer). HPACK sends a repeated value as a one-byte index and a new one as a literal, so frame sizes,
 * and with them the seed's trace, would follow the wall clock. Simulated responses go without it, as
 * simulated `node:http` responses do; a `date` header the application sets itself is kept.
 */
function withoutDateHeader(stream: import("node:http2").ServerHttp2Stream): void {
  for (const key of ["respond", "respondWithFD", "respondWithFile"] as const) {
    const send = stream[key] as AnyFunction;
    const optionsAt = key === "respond" ? 1 : 2;
    Object.defineProperty(stream, key, {
      configurable: true,
      writable: true,
      value: function sendWithoutDate(this: unknown, ...args: unknown[]) {
        const options = args[optionsAt];
        args[optionsAt] = { ...(options !== null && typeof options === "object" ? options : {}), sendDate: false };
        return send.apply(this, args);
      },
    });
  }
}

/**
 * A session or stream belongs to the process that made it (a client) or accepted it (a server): its
 * callbacks between steps run as that process, and its idle timeouts on that process's clock.
 */
function adopt(target: object, host: NodeNetHost): void {
  const running = processOf(host);
  recordOwner(target, running.world, running.owner);
  simulatedTimeouts(target, host.time);
}

let installed = false;

/** Installs the routing (idempotent). Outside a seed `http2` behaves like Node's. */
export function installNodeHttp2(): void {
  if (installed) return;
  installed = true;
  const http2 = require("node:http2") as Http2Module;
  patch(
    http2,
    "connect",
    (previous) =>
      function connect(this: unknown, ...args: unknown[]) {
        const host = currentNodeHost();
        if (host === null) return previous.apply(this, args);
        markNodeUser(host);
        useNativeHttp2();
        const session = nativeOf(previous).apply(
          this,
          simConnectArgs(host, args),
        ) as import("node:http2").ClientHttp2Session;
        adopt(session, host);
        const request = session.request;
        session.request = function requestOwned(this: unknown, ...requestArgs: unknown[]) {
          const stream = (request as AnyFunction).apply(this, requestArgs) as object;
          adopt(stream, host);
          return stream;
        } as typeof request;
        return session;
      },
  );
  patch(
    http2,
    "createServer",
    (previous) =>
      function createServer(this: unknown, ...args: unknown[]) {
        const host = currentNodeHost();
        if (host === null) return previous.apply(this, args);
        useNativeHttp2();
        const server = nativeOf(previous).apply(this, args) as import("node:http2").Http2Server;
        // Before Node's own 'connection' listener wraps the socket into a session.
        server.prependListener("connection", (socket: unknown) => inFrames(socket, "server"));
        server.prependListener("session", (session: object) => adopt(session, host));
        server.prependListener("stream", (stream: import("node:http2").ServerHttp2Stream) => {
          adopt(stream, host);
          withoutDateHeader(stream);
        });
        return server;
      },
  );
  patch(
    http2,
    "createSecureServer",
    (previous) =>
      function createSecureServer(this: unknown, ...args: unknown[]) {
        if (currentNodeHost() === null) return previous.apply(this, args);
        throw new Http2TlsInSimulation(
          "http2.createSecureServer(): a seed has no TLS; use http2.createServer() (h2c) instead",
        );
      },
  );
  syncBuiltinESMExports();
}

installNodeHttp2();
