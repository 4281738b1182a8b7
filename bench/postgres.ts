/**
 * What a real Postgres (PGlite) costs a seed, in one run:
 *
 * - templateBuildMs: initdb and the example's migrations, once (no cache file);
 * - templateReadMs: the same template read from its cache file (what every later realm pays);
 * - seedStartMs: a seed whose only work is one `pg` connection to a fresh database process (the
 *   template copied onto the simulated disk, PGlite instantiated and started), less the same seed
 *   with a process that only listens (the rest of a seed's cost); median of 3 pairs;
 * - rssPerSeedMb: RSS while a seed's database lives (read by its client once connected) less the
 *   same reading in the seed without it, median of the same 3 pairs;
 * - retainedAfterSeedsMb: RSS growth over 3 more database seeds, after full GCs (a seed's database
 *   is garbage once the seed ends, so this stays near 0);
 * - exampleSeedsPerSec: the orders-service example's correct campaign, 3 seeds in this thread,
 *   median of 3 runs.
 */
import net from "node:net";
import pg from "pg";
import { MIGRATIONS } from "../examples/orders-service/schema.ts";
import { ordersSimulation } from "../examples/orders-service/simulation.ts";
import { SimulationBuilder, type SimContext } from "../packages/sim/src/index.ts";
import { PostgresProcess, type PostgresTemplate, preparePostgresTemplate } from "../packages/sim/src/postgres.ts";

const RUNS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function fullGc(): Promise<void> {
  // WebAssembly memories are released by finalizers that run after a collection.
  for (let i = 0; i < 3; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function listenOnly(): { name: string; run: (ctx: SimContext) => Promise<void> } {
  return {
    name: "postgres",
    run: async (ctx) => {
      net.createServer((socket) => socket.destroy()).listen(5432);
      await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
    },
  };
}

async function oneSeed(withPostgres: boolean, template: PostgresTemplate): Promise<{ ms: number; rssMb: number }> {
  let rssMb = 0;
  const builder = new SimulationBuilder()
    .nodeRuntime()
    .allowGlobal("process.memoryUsage")
    .networkFaults("none")
    .processes(1, () => (withPostgres ? new PostgresProcess(template) : listenOnly()))
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
            rssMb = process.memoryUsage().rss / 1e6;
            await client.end();
            return;
          } catch {
            // The listener without a database resets: connecting is all that seed does.
            if (!withPostgres) {
              rssMb = process.memoryUsage().rss / 1e6;
              return;
            }
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
  return { ms: performance.now() - start, rssMb };
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
  const rss: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await fullGc();
    const bare = await oneSeed(false, template);
    await fullGc();
    const withDb = await oneSeed(true, template);
    starts.push(withDb.ms - bare.ms);
    rss.push(withDb.rssMb - bare.rssMb);
  }

  await fullGc();
  const before = process.memoryUsage().rss;
  for (let i = 0; i < RUNS; i++) await oneSeed(true, template);
  await fullGc();
  const retainedAfterSeedsMb = (process.memoryUsage().rss - before) / 1e6;

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
  return {
    templateBuildMs: Math.round(templateBuildMs),
    templateReadMs: Math.round(templateReadMs),
    templateFiles: template.files.size,
    templateBytes: template.sizeBytes,
    seedStartMs: Math.round(median(starts)),
    rssPerSeedMb: Number(median(rss).toFixed(1)),
    retainedAfterSeedsMb: Number(retainedAfterSeedsMb.toFixed(1)),
    exampleSeedsPerSec: Number(median(rates).toFixed(3)),
  };
}
