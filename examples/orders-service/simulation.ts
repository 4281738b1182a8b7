/**
 * The simulation: the orders service (node:http and a pg Pool) and its Postgres (PGlite, data on
 * the simulated disk) as two processes, clients as workloads, on the virtual Node runtime. During
 * the chaos window: network chaos between everyone, storage chaos on the disks, and attrition that
 * crashes the service or the database (a database crash is a power loss of its machine: what
 * Postgres had not fsynced may be lost, and it recovers from its WAL).
 */
// The simulator first: its wrappers must be in place before pg and PGlite capture Node's functions.
import {
  AttritionVictims,
  Chaos,
  SimulationBuilder,
  WorkloadCount,
  type Process,
  type SimContext,
} from "@moonpool/sim";
import { PostgresProcess, preparePostgresTemplate } from "@moonpool/sim/postgres";
import pg from "pg";
import { MIGRATIONS } from "./schema.ts";
import { createOrdersService, type OrdersVariant } from "./service.ts";
import { Ledger, OrderClient, OrdersChecker, SERVICE_PORT } from "./workload.ts";

export const CHAOS_MS = 3_000;
export const CLIENTS = 3;

/** Built once per realm (or read from its cache file): initdb and the migrations. */
export const template = await preparePostgresTemplate({ migrations: MIGRATIONS });

class OrdersProcess implements Process {
  readonly name = "orders";
  constructor(private readonly variant: OrdersVariant) {}

  async run(ctx: SimContext): Promise<void> {
    const pool = new pg.Pool({
      host: ctx.topology.ipsInGroup("postgres")[0]!,
      port: 5432,
      user: "postgres",
      database: "postgres",
      max: 4,
      connectionTimeoutMillis: 1_000,
      query_timeout: 2_000,
    });
    // An idle client whose connection broke (the database restarted): the pool drops it.
    pool.on("error", () => {});
    const server = createOrdersService(pool, this.variant);
    server.listen(SERVICE_PORT);
    await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
    server.close();
    await pool.end().catch(() => {});
  }
}

export function ordersSimulation(variant: OrdersVariant = "correct"): SimulationBuilder {
  let ledger = new Ledger();
  return new SimulationBuilder()
    .nodeRuntime()
    .beforeIteration(() => {
      ledger = new Ledger();
    })
    .processes(1, () => new PostgresProcess(template))
    .processes(1, () => new OrdersProcess(variant))
    .workloads(WorkloadCount.fixed(CLIENTS), (index) => new OrderClient(index, ledger))
    .workloadFactory(() => new OrdersChecker(ledger, CLIENTS, CHAOS_MS))
    .chaosDuration(CHAOS_MS)
    .enableChaos([
      Chaos.network("random"),
      Chaos.storage("random"),
      Chaos.attrition(
        {
          maxDead: 1,
          probGraceful: 0,
          probCrash: 1,
          probWipe: 0,
          victims: AttritionVictims.group("postgres"),
          recoveryDelayMs: [100, 800],
        },
        "swarm",
      ),
      Chaos.attrition(
        {
          maxDead: 1,
          probGraceful: 0.3,
          probCrash: 0.7,
          probWipe: 0,
          victims: AttritionVictims.group("orders"),
          recoveryDelayMs: [100, 800],
        },
        "swarm",
      ),
    ])
    .runTimeBudget(CHAOS_MS + 60_000);
}
