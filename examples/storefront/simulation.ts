/**
 * The simulation: the order API (one process, group `orders`) and the pricing service (two
 * processes, group `pricing`, reached by its group name) on the virtual Node runtime, each machine
 * with its own simulated disk through `node:fs`. During a 5 s chaos window attrition reboots the
 * order API (mostly crashes) and, separately, one pricing process at a time; DNS faults slow or
 * fail lookups; the disk loses what was not synced at a power cut half of the time, and 1 % of
 * syncs fail with `EIO`. Short grace periods and recovery delays keep each seed near 8 s.
 */
import { AttritionVictims, Chaos, SimulationBuilder, type Process, type SimContext } from "@moonpool/sim";
import { DEFAULT_STORAGE_CONFIG } from "@moonpool/sim/tuning";
import type { Durability } from "./order-log.ts";
import { ORDERS_PORT, OrderService } from "./orders.ts";
import { createPricingService, PRICING_PORT } from "./pricing.ts";
import { ShopWorkload } from "./workload.ts";

export const CHAOS_MS = 5_000;

export const ORDER_DISK = Object.freeze({
  ...DEFAULT_STORAGE_CONFIG,
  crashFaultProbability: 0.5,
  syncFailureProbability: 0.01,
});

function untilShutdown(ctx: SimContext): Promise<void> {
  return new Promise((resolve) => ctx.shutdown.addEventListener("abort", () => resolve(), { once: true }));
}

class OrdersProcess implements Process {
  readonly name = "orders";
  constructor(private readonly durability: Durability) {}

  async run(ctx: SimContext): Promise<void> {
    const service = await OrderService.start(this.durability);
    ctx.trace.info("orders_recovered", { orders: service.recoveredCount });
    const server = service.createServer().listen(ORDERS_PORT);
    await untilShutdown(ctx);
    server.close();
    await service.close();
  }
}

class PricingProcess implements Process {
  readonly name = "pricing";

  async run(ctx: SimContext): Promise<void> {
    const server = createPricingService().listen(PRICING_PORT);
    await untilShutdown(ctx);
    server.close();
  }
}

export function orderServiceSimulation(durability: Durability): SimulationBuilder {
  return new SimulationBuilder()
    .processes(1, () => new OrdersProcess(durability))
    .processes(2, () => new PricingProcess())
    .workloadFactory(() => new ShopWorkload(CHAOS_MS))
    .networkFaults("none")
    .storageFaults(ORDER_DISK)
    .chaosDuration(CHAOS_MS)
    .enableChaos([
      Chaos.attrition(
        {
          maxDead: 1,
          probGraceful: 1,
          probCrash: 4,
          probWipe: 0,
          recoveryDelayMs: [100, 1_000],
          gracePeriodMs: [200, 1_000],
          victims: AttritionVictims.group("orders"),
        },
        "random",
      ),
      Chaos.attrition(
        {
          maxDead: 1,
          probGraceful: 1,
          probCrash: 1,
          probWipe: 0,
          recoveryDelayMs: [100, 1_000],
          gracePeriodMs: [200, 1_000],
          victims: AttritionVictims.group("pricing"),
        },
        "random",
      ),
      Chaos.dns("random"),
    ])
    .nodeRuntime()
    .nodeFs();
}
