/**
 * Routes `node:net` and `node:http` to the simulated network while a seed runs. The builtins'
 * exports are patched once, for good: a call made by simulated code (the engine's current event
 * belongs to a process with a registered host) gets a simulated socket or server; any other call
 * reaches the previous function (the real one, or the escape guard's check while a seed runs).
 * Node's own http client and server code runs unchanged on top of the simulated sockets.
 */
import { markTakeover } from "../../engine/escape-guard.ts";
import type { EventEmitter } from "node:events";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { currentNodeHost, markNodeUser } from "./ambient.ts";
import { isSimulatedServer, simAddress, simClose, simConnectionCount, simListen } from "./server.ts";
import { SimSocket, type NodeNetHost } from "./socket.ts";

type AnyFunction = (...args: any[]) => any;
type NetModule = typeof import("node:net");
type HttpModule = typeof import("node:http");

const require = createRequire(import.meta.url);

/** One keep-alive agent per simulated process: pooled sockets never cross processes or seeds. */
const agents = new WeakMap<NodeNetHost, import("node:http").Agent>();

export function simConnect(host: NodeNetHost, args: readonly unknown[]): SimSocket {
  markNodeUser(host);
  const socket = new SimSocket(host);
  return socket.connect(...(args as [number]));
}

function agentFor(http: HttpModule, host: NodeNetHost): import("node:http").Agent {
  let agent = agents.get(host);
  if (agent === undefined) {
    agent = new http.Agent({ keepAlive: true });
    (agent as unknown as { createConnection: AnyFunction }).createConnection = (options: object) =>
      simConnect(host, [options]);
    agents.set(host, agent);
  }
  return agent;
}

/** `http.request(url | options[, options][, cb])` with this process's agent unless the caller chose one. */
function simRequest(http: HttpModule, host: NodeNetHost, args: unknown[]): import("node:http").ClientRequest {
  const [first, second, third] = args;
  const withAgent = (options: Record<string, unknown>): Record<string, unknown> =>
    options.agent === undefined && options.createConnection === undefined
      ? { ...options, agent: agentFor(http, host) }
      : options;
  const isTarget = typeof first === "string" || first instanceof URL;
  const ClientRequest = http.ClientRequest as unknown as new (...a: unknown[]) => import("node:http").ClientRequest;
  if (isTarget && second !== null && typeof second === "object")
    return new ClientRequest(first, withAgent(second as Record<string, unknown>), third);
  if (isTarget) return new ClientRequest(first, withAgent({}), second);
  return new ClientRequest(withAgent({ ...(first as object) }), second);
}

function patch(target: object, key: string, make: (previous: AnyFunction) => AnyFunction): void {
  const previous = (target as Record<string, AnyFunction>)[key]!;
  const enumerable = Object.getOwnPropertyDescriptor(target, key)?.enumerable ?? false;
  const value = make(previous);
  markTakeover(value, previous);
  Object.defineProperty(target, key, { configurable: true, writable: true, enumerable, value });
}

let installed = false;

/** Installs the routing (idempotent). Outside a seed every patched function behaves like Node's. */
export function installNodeNet(): void {
  if (installed) return;
  installed = true;
  const net = require("node:net") as NetModule;
  const http = require("node:http") as HttpModule;

  for (const key of ["connect", "createConnection"]) {
    patch(
      net,
      key,
      (previous) =>
        function connect(this: unknown, ...args: unknown[]) {
          const host = currentNodeHost();
          return host === null ? previous.apply(this, args) : simConnect(host, args);
        },
    );
  }
  // `new net.Socket()` then `socket.connect(port, host)` (pg's way): a simulated socket, not yet
  // connected. A Proxy keeps `net.Socket.prototype`, `instanceof` and subclasses (tls) as they were.
  const RealSocket = net.Socket;
  const socketClass: typeof RealSocket = new Proxy(RealSocket, {
    construct(target, args, newTarget): object {
      const host = newTarget === socketClass ? currentNodeHost() : null;
      if (host === null) return Reflect.construct(target, args, newTarget === socketClass ? target : newTarget);
      markNodeUser(host);
      return new SimSocket(host);
    },
  });
  Object.defineProperty(net, "Socket", { configurable: true, writable: true, enumerable: true, value: socketClass });
  patch(
    net,
    "createServer",
    (previous) =>
      function createServer(this: unknown, ...args: unknown[]) {
        return currentNodeHost() === null ? previous.apply(this, args) : new net.Server(...(args as []));
      },
  );
  const server = net.Server.prototype as unknown as Record<string, AnyFunction>;
  patch(
    server,
    "listen",
    (previous) =>
      function listen(this: EventEmitter, ...args: unknown[]) {
        const host = currentNodeHost();
        if (host === null) return previous.apply(this, args);
        if (this instanceof http.Server) {
          // Node's date cache reads the real clock: simulated responses go without a Date header.
          this.prependListener("request", (_request: unknown, response: { sendDate: boolean }) => {
            response.sendDate = false;
          });
        }
        markNodeUser(host);
        simListen(this, host, args);
        return this;
      },
  );
  patch(
    server,
    "close",
    (previous) =>
      function close(this: EventEmitter, ...args: unknown[]) {
        if (!isSimulatedServer(this)) return previous.apply(this, args);
        simClose(this, args[0] as AnyFunction | undefined);
        return this;
      },
  );
  patch(
    server,
    "address",
    (previous) =>
      function address(this: object, ...args: unknown[]) {
        return isSimulatedServer(this) ? simAddress(this) : previous.apply(this, args);
      },
  );
  patch(
    server,
    "getConnections",
    (previous) =>
      function getConnections(this: object, ...args: unknown[]) {
        if (!isSimulatedServer(this)) return previous.apply(this, args);
        const callback = args[0] as AnyFunction;
        process.nextTick(callback, null, simConnectionCount(this));
        return this;
      },
  );

  patch(
    http,
    "createServer",
    (previous) =>
      function createServer(this: unknown, ...args: unknown[]) {
        return currentNodeHost() === null ? previous.apply(this, args) : new http.Server(...(args as []));
      },
  );
  patch(
    http,
    "request",
    (previous) =>
      function request(this: unknown, ...args: unknown[]) {
        const host = currentNodeHost();
        return host === null ? previous.apply(this, args) : simRequest(http, host, args);
      },
  );
  patch(
    http,
    "get",
    (previous) =>
      function get(this: unknown, ...args: unknown[]) {
        const host = currentNodeHost();
        if (host === null) return previous.apply(this, args);
        const request = simRequest(http, host, args);
        request.end();
        return request;
      },
  );
  patch(
    http.Agent.prototype as unknown as Record<string, AnyFunction>,
    "createConnection",
    (previous) =>
      function createConnection(this: unknown, ...args: unknown[]) {
        const host = currentNodeHost();
        return host === null ? previous.apply(this, args) : simConnect(host, [args[0]]);
      },
  );
  // ESM named imports of the builtins read a facade that follows the exports only after this call.
  syncBuiltinESMExports();
}

installNodeNet();
