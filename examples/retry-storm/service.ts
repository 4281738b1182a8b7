/**
 * The service under load: a fixed pool of workers over the transport layer. Requests wait in a
 * FIFO queue for a worker; each takes about `BASE_SERVICE_MS` of work, or `SPIKE_SERVICE_MS`
 * while the trigger (a slow dependency) lasts. The server cannot tell that a client has given up
 * on a request, so it still works through requests nobody waits for: the seed of a retry storm.
 */
import { defineService, Transport, type NodeContext } from "@moonpool/core";

export interface Work {
  work(request: { readonly id: number; readonly attempt: number }): Promise<{ readonly id: number }>;
}

export const WorkService = defineService<Work>("work", { work: true });
export const SERVICE_PORT = 7400;
export const WORKERS = 4;
export const BASE_SERVICE_MS = 10;
/** During the trigger each request takes five times longer: capacity falls from 400 to 80 req/s. */
export const SPIKE_SERVICE_MS = 50;

/** When the slow dependency hits: simulated ms, drawn per seed by the workload. */
export interface Trigger {
  readonly startMs: number;
  readonly endMs: number;
}
export const TRIGGER_KEY = "retry-storm/trigger";

export class WorkServer {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly trigger: () => Trigger | undefined) {}

  async run(ctx: NodeContext): Promise<void> {
    const queueDepth = ctx.metrics.gauge("queue_depth", { help: "Requests waiting for a worker" });
    const served = ctx.metrics.counter("served_total", { help: "Requests the server finished, wanted or not" });
    const transport = new Transport(ctx);
    await transport.listen(`${ctx.myIp}:${SERVICE_PORT}`);
    transport.serve(WorkService, {
      work: async (request) => {
        if (this.busy >= WORKERS) {
          queueDepth.inc();
          await new Promise<void>((wake) => this.waiting.push(wake));
          queueDepth.dec();
        }
        this.busy++;
        try {
          const t = this.trigger();
          const now = ctx.time.now();
          const slow = t !== undefined && now >= t.startMs && now < t.endMs;
          const workMs =
            (slow ? SPIKE_SERVICE_MS : BASE_SERVICE_MS) * (0.8 + (0.4 * ctx.random.randomRange(0, 1_000)) / 1_000);
          await ctx.time.sleep(workMs);
          served.inc();
          return { id: request.id };
        } finally {
          this.busy--;
          this.waiting.shift()?.();
        }
      },
    });
    while (!ctx.shutdown.aborted) await ctx.time.sleep(100);
    await transport.close();
  }
}
