/**
 * Open-loop load against the service, then the verdict from the metrics: after the trigger and a
 * recovery tail, goodput must be back near the offered load. The seed's graphs (load and latency
 * over simulated time, the trigger marked) are attached to its result, so `moonpool run` prints
 * them.
 */
import { Transport } from "@moonpool/core";
import { assertAlways, assertSometimes, renderAsciiGraph, type SimContext, type Workload } from "@moonpool/sim";
import { RetryingClient, type RetryPolicy } from "./client.ts";
import { SERVICE_PORT, TRIGGER_KEY, WorkService, type Trigger } from "./service.ts";

/** Offered load: 200 req/s on average, half the service's normal capacity. */
export const ARRIVALS_PER_SEC = 200;
export const RUN_MS = 8_000;
/** Goodput must be back within this long after the trigger ends. */
export const RECOVERY_MS = 2_500;
/** Recovered: goodput at least this share of the offered load over the end of the run. */
export const RECOVERED_SHARE = 0.9;
const GRAPH_STEP_MS = 250;

export class LoadGenerator implements Workload {
  readonly name = "load";
  private trigger!: Trigger;

  constructor(private readonly policy: RetryPolicy) {}

  async setup(ctx: SimContext): Promise<void> {
    // The slow dependency: starts 1.5-2.5 s in, lasts 0.5-1.5 s.
    const startMs = ctx.random.randomRange(1_500, 2_500);
    this.trigger = { startMs, endMs: startMs + ctx.random.randomRange(500, 1_500) };
    ctx.state.publish(TRIGGER_KEY, this.trigger);
  }

  async run(ctx: SimContext): Promise<void> {
    const server = ctx.topology.ipsInGroup("service")[0]!;
    const transport = new Transport(ctx);
    const client = new RetryingClient(transport.stub(WorkService, `${server}:${SERVICE_PORT}`), this.policy, ctx);
    const inFlight = new Set<Promise<void>>();
    while (ctx.time.now() < RUN_MS) {
      // Exponential inter-arrival times: a Poisson stream that does not wait for answers.
      const u = ctx.random.randomRange(1, 1_000_001) / 1_000_001;
      await ctx.time.sleep((-Math.log(u) * 1_000) / ARRIVALS_PER_SEC);
      const request = client.request();
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
    await Promise.all(inFlight);
    await transport.close();
  }

  async check(ctx: SimContext): Promise<void> {
    const q = ctx.metricQuery;
    const t = this.trigger;
    const fromMs = Math.min(t.endMs + RECOVERY_MS, RUN_MS - 1_000);
    const offered = q.increase("requests_total", fromMs, RUN_MS, { labels: { attempt: "first" } });
    const goodput = q.increase("success_total", fromMs, RUN_MS);
    const share = offered === 0 ? 1 : goodput / offered;
    const retries = q.increase("requests_total", 0, RUN_MS, { labels: { attempt: "retry" } });
    assertSometimes(retries > 0, "clients retried");
    ctx.attach("load", this.graphs(ctx));
    assertAlways(share >= RECOVERED_SHARE, "goodput recovers after the trigger", {
      goodputShare: Number(share.toFixed(3)),
      triggerEndMs: t.endMs,
      measuredFromMs: fromMs,
    });
  }

  private graphs(ctx: SimContext): string {
    const q = ctx.metricQuery;
    const range = { fromMs: 0, toMs: RUN_MS, stepMs: GRAPH_STEP_MS, windowMs: GRAPH_STEP_MS };
    const rate = (name: string, labels?: Record<string, string>) =>
      q.aggregate(q.rate(name, { ...range, ...(labels ? { match: { labels } } : {}) }), "sum")[0]?.points ?? [];
    const marks = [
      { atMs: this.trigger.startMs, label: "trigger starts" },
      { atMs: this.trigger.endMs, label: "trigger ends" },
    ];
    const load = renderAsciiGraph(
      [
        { label: "offered", points: rate("requests_total", { attempt: "first" }) },
        { label: "goodput", points: rate("success_total") },
        { label: "retries", points: rate("requests_total", { attempt: "retry" }) },
      ],
      {
        title: `load (${this.policy} retries), per ${GRAPH_STEP_MS} ms window`,
        unit: "req/s",
        marks,
        fromMs: 0,
        toMs: RUN_MS,
        widthCols: 64,
        heightRows: 10,
      },
    );
    const p99 = [];
    for (let at = GRAPH_STEP_MS; at <= RUN_MS; at += GRAPH_STEP_MS) {
      const v = q.quantile("latency_ms", 0.99, at - GRAPH_STEP_MS, at);
      if (v !== undefined) p99.push([at, v] as const);
    }
    const latency = renderAsciiGraph([{ label: "p99 latency of answered requests", points: p99 }], {
      title: "latency",
      unit: "ms",
      marks,
      fromMs: 0,
      toMs: RUN_MS,
      widthCols: 64,
      heightRows: 6,
    });
    return `${load}\n\n${latency}`;
  }
}
