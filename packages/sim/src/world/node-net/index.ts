/** Node's `net` and `http` over the simulated network: sockets, servers, and the routing of the builtins. */
import "./install.ts";

export { registerNodeHost, currentNodeHost } from "./ambient.ts";
export { installNodeNet, simConnect } from "./install.ts";
export { SimSocket, type NodeNetHost } from "./socket.ts";
export { systemError, type NodeSystemError } from "./errors.ts";
