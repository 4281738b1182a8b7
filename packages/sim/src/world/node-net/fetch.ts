/**
 * The global `fetch` (Node's bundled undici) and the `undici` package over the simulated network.
 * Each simulated process gets an undici `Agent` of its own (Node's own class, so its keep-alive
 * pool, HTTP/1.1 parser and errors are undici's) whose connector dials a simulated socket of that
 * process: latency, partitions, resets and partial reads apply, and a crash resets its sockets.
 * `fetch` from a simulated process passes that agent as its `dispatcher`; the global dispatcher
 * (what `undici.request`, `undici.fetch` and `getGlobalDispatcher()` use) is replaced by a router
 * that hands a simulated process's requests to its agent and everything else to the original one.
 */
import { Duplex } from "node:stream";
import { activeVirtualDispatch, markTakeover, nativeOf, runUnguarded } from "../../engine/escape-guard.ts";
import { natives } from "../../engine/natives.ts";
import { currentVirtualProcess } from "../node-runtime/runtime.ts";
import { currentNodeHost, onHostRegistered } from "./ambient.ts";
import { simConnect } from "./install.ts";
import type { NodeNetHost } from "./socket.ts";
import { connectTimeoutError, FetchTlsInSimulation } from "./undici-errors.ts";
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_HEADERS_TIMEOUT_MS, withTimeouts } from "./undici-timeouts.ts";

type AnyFunction = (...args: any[]) => any;
interface Dispatcher {
  dispatch(options: Record<string, unknown>, handler: Record<string, AnyFunction | undefined>): boolean;
}
type AgentClass = new (options: Record<string, unknown>) => Dispatcher;

/** Where every copy of undici (Node's and the package's, 5.x to 7.x) keeps the global dispatcher. */
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");
/** undici's default connect timeout. */
const CONNECT_TIMEOUT_MS = 10_000;

const globals = globalThis as unknown as Record<symbol, Dispatcher | undefined>;
let Agent: AgentClass | null = null;
let router: Dispatcher | null = null;
/** The global dispatcher the router replaced: it serves everything but simulated processes. */
let original: Dispatcher | undefined;
const agents = new WeakMap<NodeNetHost, Dispatcher>();

/** Whether Node has loaded its bundled undici (it does at the first use of a fetch global). */
function nodeUndiciLoaded(): boolean {
  const loaded = (process as unknown as { moduleLoadList: readonly string[] }).moduleLoadList;
  return loaded.some((entry) => entry.endsWith("internal/deps/undici/undici"));
}

/**
 * The undici `Agent` class of the global dispatcher: Node's own (Node does not export it; loading its
 * undici installs a default `Agent` there unless one exists, and reading `Headers` loads it without
 * any I/O), or the `undici` package's when the package was loaded first and filled the slot, whose
 * agent a service's `fetch` then uses in Node too.
 */
function agentClass(): AgentClass {
  if (Agent !== null) return Agent;
  if (globals[GLOBAL_DISPATCHER] === undefined && !nodeUndiciLoaded())
    void (globalThis as { Headers?: unknown }).Headers;
  const dispatcher = router === null ? globals[GLOBAL_DISPATCHER] : original;
  const constructor = dispatcher?.constructor as AgentClass | undefined;
  if (constructor === undefined || constructor.name !== "Agent") {
    throw new Error(
      `fetch in a simulated process needs undici's Agent class, but the global dispatcher is ${constructor?.name ?? "missing"}: do not replace it (setGlobalDispatcher) before the simulation runs`,
    );
  }
  Agent = constructor;
  return Agent;
}

let parserReady = false;

/**
 * Before a seed: if an undici is loaded, waits (on the real loop, outside any seed) until its
 * HTTP parser exists. undici compiles it in the background when it loads; loaded outside a seed
 * (Node 22 loads its undici for the `WebSocket` global, tools load it at startup) it may still be
 * compiling when a seed's first connection needs it, which would then wait for the real loop. One
 * request on a stand-in socket ends once undici writes it, that is, once the parser is ready.
 */
export async function settleUndiciParser(): Promise<void> {
  if (parserReady || (!nodeUndiciLoaded() && globals[GLOBAL_DISPATCHER] === undefined)) return;
  const SimAgent = agentClass();
  // A background compile does not keep Node's loop alive: a real timer does, while it finishes.
  const keepAlive = natives.setTimeout(() => {}, 60_000);
  await new Promise<void>((resolve) => {
    const socket = new Duplex({
      read() {},
      write(_chunk, _encoding, callback) {
        callback();
        socket.destroy();
        resolve();
      },
    });
    // undici 7 ignores a connect that calls back before it returns.
    const connect = (_options: unknown, callback: AnyFunction) => process.nextTick(callback, null, socket);
    const agent = new SimAgent({ connect });
    const done = () => resolve();
    agent.dispatch(
      { origin: "http://parser.invalid", path: "/", method: "GET" },
      { onConnect() {}, onHeaders: () => true, onData: () => true, onComplete: done, onError: done },
    );
  });
  natives.clearTimeout(keepAlive);
  parserReady = true;
}

/** undici's `connect(options, callback)`: a simulated socket of `host`, or undici's connect timeout. */
function connector(host: NodeNetHost) {
  return (options: { hostname: string; port: string; protocol: string }, callback: AnyFunction): unknown => {
    if (options.protocol !== "http:") {
      callback(
        new FetchTlsInSimulation(
          `${options.protocol}//${options.hostname}: a seed has no TLS; fetch "http://${options.hostname}" from the simulated service instead`,
        ),
        null,
      );
      return null;
    }
    const port = options.port === "" ? 80 : Number(options.port);
    const socket = simConnect(host, [{ host: options.hostname, port }]);
    let settled = false;
    const settle = (error: Error | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      callback(error, error === null ? socket : null);
    };
    const timer = setTimeout(() => {
      socket.destroy();
      settle(connectTimeoutError(options.hostname, port, CONNECT_TIMEOUT_MS));
    }, CONNECT_TIMEOUT_MS);
    socket.once("connect", () => settle(null));
    socket.once("error", (error: Error) => settle(error));
    return socket;
  };
}

/**
 * The agent of `host`: undici's own timers for headers and bodies run on a tick shared by every
 * process (`undici-timeouts.ts`), so they are off here and each request's handler carries them.
 */
function agentFor(host: NodeNetHost): Dispatcher {
  let agent = agents.get(host);
  if (agent === undefined) {
    warmStreams();
    const SimAgent = agentClass();
    const inner = new SimAgent({ connect: connector(host), headersTimeout: 0, bodyTimeout: 0 });
    const dispatch = inner.dispatch.bind(inner);
    agent = inner;
    const timedDispatch: typeof dispatch = (options, handler) => {
      // New-style handlers (undici 7's onRequestStart ...) keep what they asked for.
      if (typeof handler.onHeaders !== "function") return dispatch(options, handler);
      const headersMs = Number(options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT_MS);
      const bodyMs = Number(options.bodyTimeout ?? DEFAULT_BODY_TIMEOUT_MS);
      return dispatch({ ...options, headersTimeout: 0, bodyTimeout: 0 }, withTimeouts(handler, headersMs, bodyMs));
    };
    inner.dispatch = timedDispatch;
    agents.set(host, agent);
  }
  return agent;
}

let streamsWarm = false;

/**
 * Node's web streams read pristine builtins from a context of their own (`vm.runInNewContext`,
 * made once and cached by Node) when a body's reader is released: made here with the guard down,
 * once per realm, it is not an escape of the first seed that reads a body.
 */
function warmStreams(): void {
  if (streamsWarm) return;
  streamsWarm = true;
  runUnguarded(() => new ReadableStream().getReader().releaseLock());
}

/** The calling simulated process, when it runs with the virtual runtime (undici needs its timers). */
function simulatedCaller(): NodeNetHost | null {
  const host = currentNodeHost();
  return host !== null && currentVirtualProcess() !== null ? host : null;
}

/** Replaces the global dispatcher (once Node's undici is loaded) by the router. */
function installRouter(): void {
  if (router !== null) return;
  agentClass();
  original = globals[GLOBAL_DISPATCHER];
  router = new Proxy(original!, {
    get(target, key) {
      if (key === "dispatch") {
        return (options: Record<string, unknown>, handler: Record<string, AnyFunction | undefined>) => {
          const host = simulatedCaller();
          return (host === null ? target : agentFor(host)).dispatch(options, handler);
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  globals[GLOBAL_DISPATCHER] = router;
}

/**
 * A seed is starting processes: once any undici is loaded (the global dispatcher exists, which costs
 * nothing to check), its global dispatcher routes simulated processes' requests.
 */
export function routeGlobalDispatcher(): void {
  if (router === null && globals[GLOBAL_DISPATCHER] !== undefined && activeVirtualDispatch() !== null) installRouter();
}

let installed = false;

/** Takes over `globalThis.fetch` for simulated processes (idempotent). */
export function installFetch(): void {
  if (installed || typeof globalThis.fetch !== "function") return;
  installed = true;
  const previous = globalThis.fetch;
  const native = nativeOf(previous);
  const fetch = function fetch(this: unknown, input: unknown, init?: Record<string, unknown>) {
    const host = simulatedCaller();
    if (host === null) return previous.call(this, input as string, init as RequestInit);
    installRouter();
    const options = init?.dispatcher === undefined ? { ...init, dispatcher: agentFor(host) } : init;
    return native.call(this, input as string, options as RequestInit);
  };
  markTakeover(fetch, previous);
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, "fetch");
  Object.defineProperty(globalThis, "fetch", { ...descriptor, value: fetch });
}

installFetch();
onHostRegistered(routeGlobalDispatcher);
