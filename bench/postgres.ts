/**
 * What a real Postgres (PGlite) costs a seed, in one run:
 *
 * - templateBuildMs: initdb and the example's migrations, once (no cache file);
 * - templateReadMs: the same template read from its cache file (what every later realm pays);
 * - seedStartMs: a seed whose only work is one `pg` connection to a fresh database process (the
 *   template copied onto the simulated disk, PGlite instantiated and started), less the same seed
 *   with a process that only listens (the rest of a seed's cost); median of 3 pairs;
 * - exampleSeedsPerSec: the orders-service example's correct campaign, 3 seeds in this thread,
 *   median of 3 runs;
 * - rssPerSeedMb / heapPerSeedMb: growth of RSS and heap after one more database seed, after a
 *   full GC (memory a seed keeps until its realm ends), median of 3.
 */
import { SimulationBuilder, type SimContext } from "../packages/sim/src/index.ts";
import { PostgresProcess, preparePostgresTemplate } from "../packages/sim/src/postgres.ts";
import { MIGRATIONS } from "../examples/orders-service/schema.ts";
import { ordersSimulation } from "../examples/orders-service/simulation.ts";
import pg from "pg";
import net from "node:net";

const RUNS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function oneSeed(withPostgres: boolean, template: Awaited<ReturnType<typeof preparePostgresTemplate>>) {
  const builder = new SimulationBuilder()
    .nodeRuntime()
    .networkFaults("none")
    .processes(1, () =>
      withPostgres
        ? new PostgresProcess(template)
        : {
            name: "postgres",
            run: async (ctx: SimContext) => {
              net.createServer((socket) => socket.destroy()).listen(5432);
              await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
            },
          },
    )
    .workload({
      name: "client",
      run: async (ctx: SimContext) => {
        const host = ctx.topology.ipsInGroup("postgres")[0]!;
        for (;;) {
          const client = new pg.Client({ host, port: 5432, user: "postgres", database: "postgres" });
          client.on("error", () => {});
          try {
            await client.connect();
            await client.query("SELECT 1");
            await client.end();
            return;
          } catch {
            if (!withPostgres) return; // the listener resets: connecting is all this seed does
            await ctx.time.sleep(50);
          }
        }
      },
    })
    .setBaseSeed(1)
    .setIterations(1);
  const start = performance.now();
  const report = await builder.run();
  if (report.failedRuns > 0) throw new Error(report.toString());
  return performance.now() - start;
}

export async function benchPostgres(): Promise<Record<string, unknown>> {
  let started = performance.now();
  await preparePostgresTemplate({ migrations: MIGRATIONS, cacheDir: null });
  const templateBuildMs = performance.now() - started;
  started = performance.now();
  const template = await preparePostgresTemplate({ migrations: MIGRATIONS });
  const templateReadMs = performance.now() - started;

  await oneSeed(true, template); // warm: V8 compiles Postgres's functions lazily, once per realm
  const starts: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const bare = await oneSeed(false, template);
    const withDb = await oneSeed(true, template);
    starts.push(withDb - bare);
  }

  const rates: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const report = await ordersSimulation()
      .setBaseSeed(1 + i)
      .setIterations(3)
      .run();
    if (report.failedRuns > 0) throw new Error(report.toString());
    rates.push(3 / ((performance.now() - t) / 1000));
  }

  const rss: number[] = [];
  const heap: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    gc();
    const before = process.memoryUsage();
    await oneSeed(true, template);
    gc();
    const after = process.memoryUsage();
    rss.push((after.rss - before.rss) / 1e6);
    heap.push((after.heapUsed - before.heapUsed) / 1e6);
  }
  gc();
  return {
    templateBuildMs: Math.round(templateBuildMs),
    templateReadMs: Math.round(templateReadMs),
    templateFiles: template.files.size,
    templateBytes: template.sizeBytes,
    seedStartMs: Math.round(median(starts)),
    exampleSeedsPerSec: Number(median(rates).toFixed(3)),
    rssPerSeedMb: Number(median(rss).toFixed(1)),
    heapPerSeedMb: Number(median(heap).toFixed(1)),
    rssAfterMb: Math.round(process.memoryUsage().rss / 1e6),
  };
}
