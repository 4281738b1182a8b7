/**
 * The global `fetch` and the `undici` package inside a seed: requests between simulated processes
 * by host name over the simulated network; keep-alive per process; Node's errors for a refused
 * connect, a partition (AbortSignal.timeout on simulated time), a crash (reset) and undici's
 * timeouts; TLS fails clearly; determinism under network chaos; outside a seed, Node's own fetch.
 */
import { Chaos, SimulationBuilder, type FaultContext, type SimContext } from "../../src/index.ts";
import http from "node:http";
import * as undici from "undici";
import { describe, expect, it } from "vitest";

const PORT = 8080;

/** The `api` service: answers `/slow` after 2 s, `/hang` never, everything else at once. */
function api(connections: number[] = []) {
  return {
    name: "api",
    run: async (ctx: SimContext) => {
      const server = http.createServer((req, res) => {
        if (req.url === "/hang") return;
        if (req.url === "/stall") {
          res.writeHead(200, { "content-type": "text/plain" });
          res.write("part");
          return;
        }
        if (req.url === "/slow") {
          setTimeout(() => res.end("late"), 2_000);
          return;
        }
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ path: req.url, from: ctx.myIp, method: req.method }));
      });
      server.on("connection", () => connections.push(ctx.time.now()));
      server.listen(PORT);
      await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
    },
  };
}

/** What a failed fetch gives: its error's name and message and its cause's code (or name). */
function failure(error: unknown): string {
  const e = error as Error & { cause?: { code?: string; name?: string } };
  const cause = e.cause === undefined ? "" : ` <- ${e.cause.code ?? e.cause.name}`;
  return `${e.name}: ${e.message}${cause}`;
}

/** The `app` process: runs `body` once, records what it returned. */
function app(results: unknown[], body: (ctx: SimContext) => Promise<unknown>) {
  return {
    name: "app",
    run: async (ctx: SimContext) => {
      await ctx.time.sleep(20);
      results.push(await body(ctx).catch((error: unknown) => `threw ${failure(error)}`));
      await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
    },
  };
}

/** Exact clocks (`.clockFaults("none")`): the tests read `now()` as simulated time. */
function twoServices(results: unknown[], body: (ctx: SimContext) => Promise<unknown>, connections?: number[]) {
  return new SimulationBuilder()
    .clockFaults("none")
    .processes(1, () => api(connections))
    .processes(1, () => app(results, body))
    .workload({ name: "w", run: async (ctx) => void (await ctx.time.sleep(6_000)) })
    .nodeRuntime()
    .networkFaults("none")
    .setBaseSeed(3)
    .setIterations(1);
}

describe("fetch over the simulated network", () => {
  it("fetches from another process by host name; requests a moment apart share one keep-alive connection", async () => {
    const results: unknown[] = [];
    const connections: number[] = [];
    const report = await twoServices(
      results,
      async (ctx) => {
        const bodies: unknown[] = [];
        for (let i = 0; i < 3; i++) {
          const post = {
            method: "POST",
            body: JSON.stringify({ n: i }),
            headers: { "content-type": "application/json" },
          };
          const response = await fetch(`http://api:${PORT}/n${i}`, i === 2 ? post : {});
          bodies.push([response.status, response.headers.get("content-type"), await response.json()]);
          // undici frees the connection on an immediate after the body ended: a request made at once
          // would find it busy and open a second one, in Node too.
          await ctx.time.sleep(10);
        }
        return bodies;
      },
      connections,
    ).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(results).toEqual([
      [
        [200, "application/json", { path: "/n0", from: "10.0.1.1", method: "GET" }],
        [200, "application/json", { path: "/n1", from: "10.0.1.1", method: "GET" }],
        [200, "application/json", { path: "/n2", from: "10.0.1.1", method: "POST" }],
      ],
    ]);
    expect(connections).toHaveLength(1);
  });

  it("errors are Node's: a refused connect, an unknown name, TLS", async () => {
    const results: unknown[] = [];
    const report = await twoServices(results, async () => {
      const outcomes: string[] = [];
      for (const url of [`http://api:${PORT + 1}/`, `http://nowhere:${PORT}/`, `https://api:${PORT}/`])
        outcomes.push(
          await fetch(url).then(
            (r) => `status ${r.status}`,
            (error: unknown) => failure(error),
          ),
        );
      return outcomes;
    }).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(results).toEqual([
      [
        "TypeError: fetch failed <- ECONNREFUSED",
        "TypeError: fetch failed <- ENOTFOUND",
        "TypeError: fetch failed <- ERR_MOONPOOL_FETCH_TLS",
      ],
    ]);
  });

  it("a partition: AbortSignal.timeout rejects with TimeoutError after 500 ms of simulated time; after the heal it works", async () => {
    const results: unknown[] = [];
    const report = await twoServices(results, async (ctx) => {
      await ctx.time.sleep(100); // the partition starts at 50 ms
      const start = ctx.time.now();
      const first = await fetch(`http://api:${PORT}/`, { signal: AbortSignal.timeout(500) }).then(
        () => "answered",
        (error: unknown) => `${(error as Error).name} after ${Math.round(ctx.time.now() - start)} ms`,
      );
      await ctx.time.sleep(1_500);
      const second = await fetch(`http://api:${PORT}/ok`).then((r) => r.json());
      return [first, second];
    })
      .faultFactory(() => ({
        name: "partitioner",
        inject: async (ctx: FaultContext) => {
          await ctx.time.sleep(50);
          ctx.partitionBetween("10.0.1.1", "10.0.2.1", 1_000);
        },
      }))
      .chaosDuration(3_000)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(results).toEqual([["TimeoutError after 500 ms", { path: "/ok", from: "10.0.1.1", method: "GET" }]]);
  });

  it("a crash of the server mid-request resets the connection: fetch failed, and the restarted server answers", async () => {
    const results: unknown[] = [];
    const report = await twoServices(results, async (ctx) => {
      const first = await fetch(`http://api:${PORT}/slow`).then(
        (r) => r.text(),
        (error: unknown) => `${failure(error)} at ${ctx.time.now()}`,
      );
      await ctx.time.sleep(1_000);
      const second = await fetch(`http://api:${PORT}/again`).then((r) => r.json());
      return [first, second];
    })
      .faultFactory(() => ({
        name: "crasher",
        inject: async (ctx: FaultContext) => {
          await ctx.time.sleep(500);
          ctx.rebootWithDelays("10.0.1.1", "crash", 200);
        },
      }))
      .chaosDuration(3_000)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(results).toEqual([
      ["TypeError: fetch failed <- ECONNRESET at 500", { path: "/again", from: "10.0.1.1", method: "GET" }],
    ]);
  });

  it("undici's timeouts run on simulated time: headersTimeout, bodyTimeout", async () => {
    const results: unknown[] = [];
    const report = await twoServices(results, async (ctx) => {
      const start = ctx.time.now();
      const outcomes: string[] = [];
      for (const [path, options] of [
        ["/hang", { headersTimeout: 1_000 }],
        ["/slow", { headersTimeout: 3_000 }],
      ] as const) {
        outcomes.push(
          await undici.request(`http://api:${PORT}${path}`, options).then(
            async (r) => `${r.statusCode} ${await r.body.text()} at ${Math.round(ctx.time.now() - start)}`,
            (error: { code: string }) => `${error.code} at ${Math.round(ctx.time.now() - start)}`,
          ),
        );
      }
      return outcomes;
    }).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    // Each timer starts once the request is on its connection (after the connect's few ms).
    const [timedOut, late] = results[0] as [string, string];
    expect(timedOut).toMatch(/^UND_ERR_HEADERS_TIMEOUT at 10[0-2]\d$/);
    expect(late).toMatch(/^200 late at 30[0-2]\d$/);
  });

  it("bodyTimeout and AbortController: undici's UND_ERR_BODY_TIMEOUT, an AbortError, on simulated time", async () => {
    const results: unknown[] = [];
    const report = await twoServices(results, async (ctx) => {
      const start = ctx.time.now();
      const stalled = await undici
        .request(`http://api:${PORT}/stall`, { bodyTimeout: 1_000 })
        .then((r) => r.body.text())
        .catch((error: unknown) => error);
      const stalledAt = Math.round(ctx.time.now() - start);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const abortStart = ctx.time.now();
      const aborted = await fetch(`http://api:${PORT}/hang`, { signal: controller.signal }).catch(
        (error: Error) => `${error.name} after ${Math.round(ctx.time.now() - abortStart)} ms`,
      );
      return [(stalled as { code?: string }).code ?? stalled, stalledAt >= 1_000 && stalledAt < 1_030, aborted];
    }).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(results).toEqual([["UND_ERR_BODY_TIMEOUT", true, "AbortError after 200 ms"]]);
  });

  it("the undici package: request, fetch and stream through the global dispatcher reach the simulated service", async () => {
    const results: unknown[] = [];
    const report = await twoServices(results, async () => {
      const viaRequest = await undici.request(`http://api:${PORT}/r`).then((r) => r.body.json());
      const viaFetch = await undici.fetch(`http://api:${PORT}/f`).then((r) => r.json());
      const failed = await undici.request(`http://api:${PORT + 1}/`).catch((error: { code: string }) => error.code);
      return [viaRequest, viaFetch, failed];
    }).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(results).toEqual([
      [
        { path: "/r", from: "10.0.1.1", method: "GET" },
        { path: "/f", from: "10.0.1.1", method: "GET" },
        "ECONNREFUSED",
      ],
    ]);
  });

  function chaotic(seed: number, results: unknown[]): SimulationBuilder {
    return new SimulationBuilder()
      .processes(1, () => api())
      .processes(1, () =>
        app(results, async (ctx) => {
          const outcomes: string[] = [];
          for (let i = 0; i < 8; i++) {
            outcomes.push(
              await fetch(`http://api:${PORT}/n${i}`, { signal: AbortSignal.timeout(300) }).then(
                async (r) => `${r.status} ${((await r.json()) as { path: string }).path}`,
                (error: unknown) => failure(error),
              ),
            );
            await ctx.time.sleep(ctx.random.randomRange(1, 100));
          }
          return outcomes;
        }),
      )
      .workload({ name: "w", run: async (ctx) => void (await ctx.time.sleep(4_000)) })
      .enableChaos([Chaos.network("random"), Chaos.dns("random")])
      .chaosDuration(3_000)
      .nodeRuntime()
      .setBaseSeed(seed)
      .setIterations(6);
  }

  it("under network and DNS chaos the same seeds give the same trace hashes and outcomes; other seeds differ", async () => {
    const first: unknown[] = [];
    const second: unknown[] = [];
    const a = await chaotic(21, first).run();
    const b = await chaotic(21, second).run();
    expect(a.failedRuns, a.toString()).toBe(0);
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(second).toEqual(first);
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(6);
  });

  it("seed isolation: a seed run alone gives the hash it had after other fetch seeds in this realm", async () => {
    const campaign = await chaotic(33, []).run();
    const last = campaign.seeds[campaign.seeds.length - 1]!;
    const alone = await chaotic(33, []).setDebugSeeds([last.seed]).setIterations(1).run();
    expect(alone.seeds[0]!.traceHash).toBe(last.traceHash);
  });

  it("outside a seed, fetch is Node's own", async () => {
    const server = http.createServer((_req, res) => res.end("real"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("real");
    await new Promise((resolve) => server.close(resolve));
  });
});
