/** `ctx.network` of one scope, and `markConnectionStable` for links the system treats as infrastructure. */
import type { Connection, Listener, NetworkProvider } from "@moonpool/core";
import type { ActorScope } from "../scope.ts";
import { SimConnection } from "./connection.ts";
import type { SimNetwork } from "./network.ts";

/**
 * Marks a simulated connection (both ends) stable: exempt from clogs, random close, bit flips
 * and partial I/O (for links the system under test treats as infrastructure). Latency and partitions still apply.
 */
export function markConnectionStable(conn: Connection): void {
  if (!(conn instanceof SimConnection)) {
    throw new TypeError(
      "markConnectionStable(conn): conn must be a connection of the simulated network (from ctx.network)",
    );
  }
  conn.net.markStable(conn);
}

/** `ctx.network` of one scope: binds and connects on behalf of that scope's incarnation and task. */
export class SimNetworkProvider implements NetworkProvider {
  constructor(
    private readonly net: SimNetwork,
    private readonly scope: ActorScope,
  ) {}

  bind(addr: string): Promise<Listener> {
    return this.net.bind(this.scope, addr);
  }

  connect(addr: string): Promise<Connection> {
    return this.net.connect(this.scope, addr);
  }
}
