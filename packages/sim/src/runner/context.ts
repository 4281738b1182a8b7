/** The `SimContext` handed to processes and workloads: an actor scope plus topology and state. */
import { InvalidConfiguration } from "@moonpool/core";
import type { Incarnation } from "../engine/incarnation.ts";
import { MetricQuery } from "../world/metrics/query.ts";
import type { TraceQuery } from "../world/trace-log.ts";
import { ActorScope } from "../world/scope.ts";
import { registerNodeHost } from "../world/node-net/index.ts";
import type { ProcessClock } from "../world/time.ts";
import type { World } from "../world/world.ts";
import type { StateBoard } from "./state-board.ts";
import type { Topology } from "./topology.ts";
import type { SimContext } from "./user-interfaces.ts";
import type { ChaosWindowView } from "./seed-chaos.ts";
import type { WorkloadSizes } from "./shrink/sizes.ts";

export class SimContextImpl extends ActorScope implements SimContext {
  constructor(
    world: World,
    incarnation: Incarnation,
    clock: ProcessClock,
    readonly myIp: string,
    readonly clientId: number,
    readonly clientCount: number,
    readonly topology: Topology,
    readonly state: StateBoard,
    readonly chaosWindow: ChaosWindowView,
    private readonly sizes: WorkloadSizes,
  ) {
    super(world, incarnation, null, clock, myIp);
    registerNodeHost(world, incarnation, this);
  }

  get shutdown(): AbortSignal {
    return this.incarnation.shutdown;
  }

  get traceQuery(): TraceQuery {
    // A read-only view: the log itself also records.
    const log = this.world.trace;
    return {
      since: (name, cursor) => log.since(name, cursor),
      count: (name) => log.count(name),
      snapshot: (name) => log.snapshot(name),
    };
  }

  get metricQuery(): MetricQuery {
    return new MetricQuery(this.world.metrics);
  }

  size(name: string, n: number): number {
    return this.sizes.size(name, n);
  }

  attach(name: string, text: string): void {
    if (typeof name !== "string" || name.length === 0 || typeof text !== "string") {
      throw new InvalidConfiguration(
        `attach(name, text): both must be strings and name non-empty, got ${typeof name} and ${typeof text}`,
      );
    }
    this.world.attachments.push({ name, text });
  }
}
