/** Production providers: the provider interfaces on real Node I/O (zero runtime dependencies). */
export { ProductionTime, type ProductionTimeOptions } from "./time.ts";
export { ProductionTask, type ProductionTaskOptions } from "./task.ts";
export { ChannelRegistry } from "./channel.ts";
export { ProductionRandom } from "./random.ts";
export {
  ProductionNetwork,
  ProductionConnection,
  ProductionListener,
  DEFAULT_READ_HIGH_WATER_MARK,
  type ProductionNetworkOptions,
} from "./network.ts";
export {
  ProductionStorage,
  ProductionStorageFile,
  UnconfiguredStorage,
  type ProductionStorageOptions,
} from "./storage.ts";
export { parseAddr, formatAddr, toIoError, type SocketAddress } from "./address.ts";
export { prometheusMetrics, type PromClientLike, type PromRegistryLike, type PrometheusMetrics } from "./prometheus.ts";
export { ConsoleTracer, NullTracer, type ConsoleTracerOptions } from "./tracer.ts";
export {
  productionProviders,
  createNodeContext,
  type ProductionProviders,
  type ProductionProvidersOptions,
  type NodeContextOptions,
  type ProductionNodeContext,
} from "./context.ts";
