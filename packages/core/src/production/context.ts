/** Wiring: the production providers as one bundle, and a `NodeContext` for a real process. */
import { isIP } from "node:net";
import { abortError, InvalidConfiguration } from "../errors.ts";
import { NO_METRICS, type MetricsProvider } from "../metrics.ts";
import type { NodeContext, Providers } from "../providers.ts";
import type { TraceLevel, Tracer } from "../trace.ts";
import { ProductionNetwork, type ProductionNetworkOptions } from "./network.ts";
import { ProductionRandom } from "./random.ts";
import { ProductionStorage, UnconfiguredStorage } from "./storage.ts";
import { ProductionTask } from "./task.ts";
import { ProductionTime } from "./time.ts";
import { ConsoleTracer } from "./tracer.ts";

export interface ProductionProvidersOptions {
  /** Tracer handed to spawned tasks. Default: `ConsoleTracer` at `traceLevel`. */
  readonly tracer?: Tracer;
  /** Level floor of the default tracer. Default `"info"`. */
  readonly traceLevel?: TraceLevel;
  /** When this signal aborts, the signals of all spawned tasks abort too. */
  readonly signal?: AbortSignal;
  /** Options of the TCP network (read high-water mark, TCP_NODELAY). */
  readonly network?: Omit<ProductionNetworkOptions, "halt">;
  /**
   * The directory `storage` keeps its files in (created on first use). Without it, `storage` is
   * an `UnconfiguredStorage` whose every call rejects with `InvalidConfiguration`.
   */
  readonly storageRoot?: string;
  /** Metrics of spawned tasks. Default: `NO_METRICS`. */
  readonly metrics?: MetricsProvider;
}

export interface ProductionProviders extends Providers {
  readonly time: ProductionTime;
  readonly task: ProductionTask;
  readonly random: ProductionRandom;
  readonly network: ProductionNetwork;
  readonly storage: ProductionStorage | UnconfiguredStorage;
}

/** The real-I/O providers: one clock, one randomness source, TCP, and a task spawner over them. */
export function productionProviders(options: ProductionProvidersOptions = {}): ProductionProviders {
  const time = new ProductionTime();
  const random = new ProductionRandom();
  const network = new ProductionNetwork(options.network);
  const storage =
    options.storageRoot === undefined
      ? new UnconfiguredStorage()
      : new ProductionStorage({ root: options.storageRoot });
  const tracer = options.tracer ?? new ConsoleTracer({ level: options.traceLevel ?? "info" });
  const task = new ProductionTask({
    time,
    random,
    network,
    storage,
    tracer,
    signal: options.signal,
    metrics: options.metrics ?? NO_METRICS,
  });
  return { time, task, random, network, storage };
}

export interface NodeContextOptions {
  /** This process's IP address (no port), e.g. `"10.0.0.1"`; servers bind `${myIp}:port`. */
  readonly myIp: string;
  /** Level floor of the stderr tracer. Default `"info"`. */
  readonly traceLevel?: TraceLevel;
  /** Replaces the stderr `ConsoleTracer` (which tags every event with `node: myIp`). */
  readonly tracer?: Tracer;
  /**
   * What aborts `ctx.shutdown` besides `ctx.requestShutdown()`:
   * - `true`: the first SIGTERM or SIGINT (then the handlers are removed, so a second signal
   *   gets Node's default behaviour and kills the process);
   * - an `AbortSignal`: that signal;
   * - `false` (default): nothing else.
   */
  readonly shutdown?: boolean | AbortSignal;
  /** Options of the TCP network (read high-water mark, TCP_NODELAY). */
  readonly network?: Omit<ProductionNetworkOptions, "halt">;
  /** The directory `ctx.storage` keeps its files in; see `ProductionProvidersOptions.storageRoot`. */
  readonly storageRoot?: string;
  /**
   * Where `ctx.metrics` records: `prometheusMetrics(promClient)` to serve `/metrics`. Default
   * `NO_METRICS` (recorded nowhere).
   */
  readonly metrics?: MetricsProvider;
}

export interface ProductionNodeContext extends NodeContext {
  readonly time: ProductionTime;
  readonly task: ProductionTask;
  readonly random: ProductionRandom;
  readonly network: ProductionNetwork;
  readonly storage: ProductionStorage | UnconfiguredStorage;
  /** Aborts `shutdown` (with an `AbortError`) as a signal would. */
  requestShutdown(reason?: string): void;
  /** Removes the SIGTERM/SIGINT handlers (if any) without shutting down. */
  dispose(): void;
}

/**
 * A `NodeContext` on real I/O. Spawned tasks' signals abort on shutdown, like in the simulator.
 *
 * ```ts
 * const ctx = createNodeContext({ myIp: "127.0.0.1", shutdown: true });
 * await runServer(ctx); // returns once ctx.shutdown aborted and the server drained
 * ```
 */
export function createNodeContext(options: NodeContextOptions): ProductionNodeContext {
  if (isIP(options.myIp) === 0) {
    throw new InvalidConfiguration(
      `createNodeContext: myIp must be an IP address without port, got '${String(options.myIp)}'`,
    );
  }
  const controller = new AbortController();
  const requestShutdown = (reason = "process is shutting down"): void => {
    if (!controller.signal.aborted) controller.abort(abortError(reason));
  };
  let dispose = (): void => {};
  const source = options.shutdown ?? false;
  if (source === true) {
    const onSigterm = (): void => requestShutdown("received SIGTERM");
    const onSigint = (): void => requestShutdown("received SIGINT");
    process.once("SIGTERM", onSigterm);
    process.once("SIGINT", onSigint);
    dispose = () => {
      process.off("SIGTERM", onSigterm);
      process.off("SIGINT", onSigint);
    };
    // After the first signal the other handler goes too, so a second signal kills the process.
    controller.signal.addEventListener("abort", () => dispose(), { once: true });
  } else if (source !== false) {
    if (source.aborted) controller.abort(source.reason);
    else {
      const follow = (): void => controller.abort(source.reason);
      source.addEventListener("abort", follow, { once: true });
      dispose = () => source.removeEventListener("abort", follow);
    }
  }
  const tracer =
    options.tracer ?? new ConsoleTracer({ level: options.traceLevel ?? "info", fields: { node: options.myIp } });
  const metrics = options.metrics ?? NO_METRICS;
  const providers = productionProviders({
    tracer,
    signal: controller.signal,
    network: options.network,
    storageRoot: options.storageRoot,
    metrics,
  });
  return {
    ...providers,
    myIp: options.myIp,
    trace: tracer,
    metrics,
    shutdown: controller.signal,
    requestShutdown,
    dispose: () => dispose(),
  };
}
