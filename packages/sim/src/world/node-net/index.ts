/** Node's `net`, `http` and `http2` over the simulated network: sockets, servers, and the routing of the builtins. */
import "./install.ts";
import "./http2.ts";
import "./dns.ts";
import "./fetch.ts";

export { registerNodeHost, currentNodeHost } from "./ambient.ts";
export { installNodeNet, simConnect } from "./install.ts";
export { installNodeHttp2, Http2TlsInSimulation } from "./http2.ts";
export { SimSocket, type NodeNetHost } from "./socket.ts";
export { systemError, type NodeSystemError } from "./errors.ts";
export { SimDns, DNS_NO_FAULTS, type DnsFaultConfig } from "./dns-table.ts";
export { FetchTlsInSimulation } from "./undici-errors.ts";
