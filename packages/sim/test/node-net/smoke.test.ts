import http from "node:http";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";

describe("smoke", () => {
  it("http over the simulated network", async () => {
    const got: string[] = [];
    const report = await new SimulationBuilder()
      .processes(1, () => ({
        name: "web",
        run: async (ctx: SimContext) => {
          const server = http.createServer((req, res) => {
            res.writeHead(200, { "content-type": "text/plain" });
            res.end(`hello ${req.url}`);
          });
          server.listen(8080);
          await new Promise((r) => ctx.shutdown.addEventListener("abort", r));
        },
      }))
      .workload({
        name: "client",
        run: async (ctx: SimContext) => {
          await ctx.time.sleep(100);
          const ip = ctx.topology.processIps[0]!;
          for (let i = 0; i < 3; i++) {
            const body = await new Promise<string>((resolve, reject) => {
              http
                .get(`http://${ip}:8080/x${i}`, (res) => {
                  let text = `${res.statusCode} `;
                  res.on("data", (c) => (text += c));
                  res.on("end", () => resolve(text));
                })
                .on("error", reject);
            });
            got.push(body);
          }
          expect(net.isIP(ip)).toBe(4);
        },
      })
      .networkFaults("none")
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(got).toEqual(["200 hello /x0", "200 hello /x1", "200 hello /x2"]);
  });
});
