/**
 * The simulation: the service as one process listening on its port with plain `node:http`, the
 * client workload over `http.request`, network chaos (latency, partitions, resets, partial I/O)
 * during a chaos window. Buggify makes the store fail.
 */
import { Chaos, SimulationBuilder, type Process, type SimContext } from "@moonpool/sim";
import { createService, type ServiceOptions } from "./service.ts";
import { SERVICE_PORT, WebClient } from "./workload.ts";

export const CHAOS_MS = 2_000;

class WebProcess implements Process {
  readonly name = "web";
  constructor(private readonly options: ServiceOptions) {}

  async run(ctx: SimContext): Promise<void> {
    const server = createService(undefined, this.options);
    server.listen(SERVICE_PORT);
    await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
    server.close();
  }
}

export function webServiceSimulation(options: ServiceOptions = {}): SimulationBuilder {
  return new SimulationBuilder()
    .processes(1, () => new WebProcess(options))
    .workloadFactory(() => new WebClient())
    .chaosDuration(CHAOS_MS)
    .enableChaos([Chaos.network("random")]);
}
