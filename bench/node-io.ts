/**
 * Requests per second (wall time) of one request/response exchange inside the simulation, two
 * ways in one run:
 *
 * - httpRequestsPerSec: the web-service example's create-then-read over `node:http` (Node's own
 *   client and server on simulated sockets), one request in flight at a time;
 * - fetchRequestsPerSec: the same create-then-read with the global `fetch` (Node's bundled undici
 *   on its per-process agent over simulated sockets, `nodeRuntime()` on), against the same server;
 * - providerRequestsPerSec: the same JSON request and reply as length-prefixed frames straight
 *   over the core network provider (`ctx.network`), the floor `node:http` adds to.
 *
 * No network faults (the cost of the layers, not of chaos). Interleaved rounds; medians.
 * `ratio` = http / provider, `fetchRatio` = fetch / provider. `fs`: synced writes through `node:fs` against the
 * storage provider's (node-io-fs.ts).
 */
import { FramedConnection } from "../packages/core/src/index.ts";
import { SimulationBuilder, type SimContext } from "../packages/sim/src/index.ts";
import { call } from "../examples/web-service/client.ts";
import { createService } from "../examples/web-service/service.ts";
import { benchNodeFs } from "./node-io-fs.ts";

const REQUESTS = 2_000;
const ROUNDS = 5;
const PORT = 8080;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function untilShutdown(ctx: SimContext): Promise<unknown> {
  return new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
}

async function measure(builder: SimulationBuilder): Promise<number> {
  const start = performance.now();
  const report = await builder.networkFaults("none").setBaseSeed(1).setIterations(1).runTimeBudget(10_000_000).run();
  const seconds = (performance.now() - start) / 1000;
  if (report.failedRuns > 0) throw new Error(report.toString());
  return REQUESTS / seconds;
}

function httpRound(): Promise<number> {
  return measure(
    new SimulationBuilder()
      .processes(1, () => ({
        name: "web",
        run: async (ctx: SimContext) => {
          createService().listen(PORT);
          await untilShutdown(ctx);
        },
      }))
      .workload({
        name: "client",
        run: async (ctx: SimContext) => {
          const host = ctx.topology.processIps[0]!;
          await ctx.time.sleep(50);
          for (let i = 0; i < REQUESTS / 2; i++) {
            const created = await call(host, PORT, "POST", "/items", { value: `v${i}` });
            const id = (created.body as { id?: string } | undefined)?.id ?? "none";
            const read = await call(host, PORT, "GET", `/items/${id}`);
            // The store's buggify failures answer 500 (same seed every round): only a lost answer is an error.
            if (created.status === null || read.status === null) throw new Error("a request got no answer");
          }
        },
      }),
  );
}

function fetchRound(): Promise<number> {
  return measure(
    new SimulationBuilder()
      .processes(1, () => ({
        name: "web",
        run: async (ctx: SimContext) => {
          createService().listen(PORT);
          await untilShutdown(ctx);
        },
      }))
      .workload({
        name: "client",
        run: async (ctx: SimContext) => {
          await ctx.time.sleep(50);
          for (let i = 0; i < REQUESTS / 2; i++) {
            const created = await fetch(`http://web:${PORT}/items`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ value: `v${i}` }),
            });
            const id = created.ok ? ((await created.json()) as { id: string }).id : (await created.text(), "none");
            const read = await fetch(`http://web:${PORT}/items/${id}`);
            await read.text();
          }
        },
      })
      .nodeRuntime(),
  );
}

function providerRound(): Promise<number> {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return measure(
    new SimulationBuilder()
      .processes(1, () => ({
        name: "web",
        run: async (ctx: SimContext) => {
          const listener = await ctx.network.bind(`${ctx.myIp}:${PORT}`);
          const items = new Map<string, string>();
          const conn = new FramedConnection(await listener.accept());
          for (let frame = await conn.recv(); frame !== null; frame = await conn.recv()) {
            const request = JSON.parse(decoder.decode(frame)) as { method: string; id?: string; value?: string };
            let reply: unknown;
            if (request.method === "POST") {
              const id = `item-${items.size + 1}`;
              items.set(id, request.value!);
              reply = { status: 201, body: { id } };
            } else reply = { status: 200, body: { id: request.id, value: items.get(request.id!) } };
            await conn.send(encoder.encode(JSON.stringify(reply)));
          }
          await untilShutdown(ctx);
        },
      }))
      .workload({
        name: "client",
        run: async (ctx: SimContext) => {
          await ctx.time.sleep(50);
          const conn = new FramedConnection(await ctx.network.connect(`${ctx.topology.processIps[0]!}:${PORT}`));
          const exchange = async (request: object): Promise<{ status: number; body: { id: string } }> => {
            await conn.send(encoder.encode(JSON.stringify(request)));
            return JSON.parse(decoder.decode((await conn.recv())!)) as { status: number; body: { id: string } };
          };
          for (let i = 0; i < REQUESTS / 2; i++) {
            const created = await exchange({ method: "POST", value: `v${i}` });
            const read = await exchange({ method: "GET", id: created.body.id });
            if (read.status !== 200) throw new Error(`read answered ${read.status}`);
          }
          await conn.close();
        },
      }),
  );
}

export async function benchNodeIo(): Promise<Record<string, unknown>> {
  await httpRound(); // warm-up: module loading and JIT
  await providerRound();
  await fetchRound();
  const http: number[] = [];
  const fetched: number[] = [];
  const provider: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    http.push(await httpRound());
    fetched.push(await fetchRound());
    provider.push(await providerRound());
  }
  const httpRequestsPerSec = Math.round(median(http));
  const fetchRequestsPerSec = Math.round(median(fetched));
  const providerRequestsPerSec = Math.round(median(provider));
  return {
    requestsPerRound: REQUESTS,
    rounds: ROUNDS,
    httpRequestsPerSec,
    fetchRequestsPerSec,
    providerRequestsPerSec,
    ratio: Number((httpRequestsPerSec / providerRequestsPerSec).toFixed(3)),
    fetchRatio: Number((fetchRequestsPerSec / providerRequestsPerSec).toFixed(3)),
    fs: await benchNodeFs(),
  };
}
