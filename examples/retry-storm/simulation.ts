/**
 * The retry storm: one service, one open-loop load generator, a trigger that slows the service
 * for up to 1.5 s. No network chaos: the trigger alone must not leave lasting damage.
 */
import { SimulationBuilder, type Process, type SimContext } from "@moonpool/sim";
import type { RetryPolicy } from "./client.ts";
import { TRIGGER_KEY, WorkServer, type Trigger } from "./service.ts";
import { LoadGenerator } from "./workload.ts";

class Service implements Process {
  readonly name = "service";
  run(ctx: SimContext): Promise<void> {
    return new WorkServer(() => ctx.state.get<Trigger>(TRIGGER_KEY)).run(ctx);
  }
}

export function retryStormSimulation(policy: RetryPolicy): SimulationBuilder {
  return new SimulationBuilder()
    .processes(1, () => new Service())
    .workloadFactory(() => new LoadGenerator(policy))
    .networkFaults("none")
    .runTimeBudget(60_000);
}
