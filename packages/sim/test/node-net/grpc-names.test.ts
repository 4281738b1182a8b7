/**
 * `@grpc/grpc-js` finds a simulated server by host name: its DNS resolver's `dns.promises.lookup`
 * and TXT query answer from the seed's names; an unknown name fails the call as grpc-js reports a
 * failed resolution.
 */
import { describe, expect, it } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";
import { bind, createKvServer, KvService } from "../../../../examples/grpc-service/service.ts";

const PORT = 50051;
const KvClient = grpc.makeGenericClientConstructor(KvService, "Kv");

function call(client: grpc.Client, method: "put" | "get", request: object): Promise<string> {
  return new Promise((resolve) =>
    (
      client as unknown as Record<
        string,
        (r: object, o: object, cb: (e: grpc.ServiceError | null, r?: object) => void) => void
      >
    )[method]!(request, { deadline: Date.now() + 1_000 }, (error, reply) =>
      resolve(error === null ? JSON.stringify(reply) : `${grpc.status[error.code]}: ${error.details}`),
    ),
  );
}

describe("grpc-js by host name", () => {
  it("a channel to kv-0 and to the group name reaches the server; an unknown name fails resolution", async () => {
    const outcomes: string[] = [];
    const report = await new SimulationBuilder()
      .processes(1, () => ({
        name: "kv",
        run: async (ctx: SimContext) => {
          const server = createKvServer();
          await bind(server, PORT);
          await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
          server.forceShutdown();
        },
      }))
      .workload({
        name: "client",
        run: async (ctx: SimContext) => {
          await ctx.time.sleep(50);
          for (const target of [`kv-0:${PORT}`, `dns:///kv:${PORT}`, `nowhere:${PORT}`]) {
            const client = new KvClient(target, grpc.credentials.createInsecure(), {
              "grpc.use_local_subchannel_pool": 1,
            });
            outcomes.push(await call(client, "put", { key: target, value: "v" }));
            client.close();
          }
        },
      })
      .nodeRuntime()
      .networkFaults("none")
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const boot = /"boot":"([^"]+)"/.exec(outcomes[0]!)?.[1];
    expect(outcomes).toEqual([
      `{"boot":"${boot}","value":"v"}`,
      `{"boot":"${boot}","value":"v"}`,
      "UNAVAILABLE: Name resolution failed for target dns:nowhere:50051",
    ]);
  });
});
