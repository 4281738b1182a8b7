/** The simulated network: addresses, connections and listeners, the network itself, its faults and partitions. */
export { parseSimAddr } from "./address.ts";
export { SimConnection, SimListener } from "./connection.ts";
export {
  SimNetwork,
  EPHEMERAL_PORT_FIRST,
  EPHEMERAL_PORT_LAST,
  FIFO_SPACING_US,
} from "./network.ts";
export { RANDOM_CLOSE_PEER_RECV_BELOW, RANDOM_CLOSE_LOCAL_SEND_ABOVE } from "./fault-rolls.ts";
export { SimNetworkProvider, markConnectionStable } from "./provider.ts";
export { BASELINE_LATENCY } from "./config.ts";
export { pairKey } from "./partitions.ts";
