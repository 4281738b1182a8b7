import http2 from "node:http2";
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";

const PORT = 8443;

function server() {
  return {
    name: "h2",
    run: async (ctx: SimContext) => {
      const srv = http2.createServer();
      srv.on("stream", (stream, headers) => {
        stream.respond({ ":status": 200 });
        stream.end(`hello ${headers[":path"]}`);
      });
      srv.listen(PORT);
      await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
      srv.close();
    },
  };
}

function client(out: string[]) {
  return {
    name: "client",
    run: async (ctx: SimContext) => {
      await ctx.time.sleep(20);
      const session = http2.connect(`http://${ctx.topology.processIps[0]}:${PORT}`);
      session.on("error", (e) => out.push(`session error ${e.message}`));
      for (let i = 0; i < 3; i++) {
        const body = await new Promise<string>((resolve) => {
          const req = session.request({ ":path": `/n${i}` });
          let data = "";
          req.setEncoding("utf8");
          req.on("data", (c) => (data += c));
          req.on("end", () => resolve(data));
          req.on("error", (e) => resolve(`error ${e.message}`));
          req.end();
        });
        out.push(body);
      }
      session.close();
    },
  };
}

describe("node:http2", () => {
  it("request/response", { timeout: 60_000 }, async () => {
    const out: string[] = [];
    const report = await new SimulationBuilder()
      .processes(1, () => server())
      .workload(client(out))
      .networkFaults("none")
      .setBaseSeed(1)
      .setIterations(1)
      .run();
    console.log(report.toString(), out);
    expect(report.failedRuns).toBe(0);
  });
});
