/**
 * An empty write moves no bytes, so it is no activity for a socket's idle timeout. Node's http ends
 * a message with one on Node 20 and 22 but not on 24; counting it would make a request's timeout,
 * and with it the whole timeline, depend on the Node version.
 */
import net from "node:net";
import { expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";

const PORT = 7100;

async function idleTimeoutAfter(write: string): Promise<number> {
  let elapsedMs = -1;
  const report = await new SimulationBuilder()
    .processes(1, () => ({
      name: "sink",
      run: async (ctx: SimContext) => {
        net.createServer((socket) => socket.resume()).listen(PORT);
        await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
      },
    }))
    .workload({
      name: "client",
      run: async (ctx: SimContext) => {
        await ctx.time.sleep(10);
        const socket = net.connect(PORT, ctx.topology.processIps[0]!);
        await new Promise((resolve) => socket.once("connect", resolve));
        const start = ctx.time.now();
        socket.setTimeout(500);
        await ctx.time.sleep(300);
        socket.write(write);
        await new Promise((resolve) => socket.once("timeout", resolve));
        elapsedMs = ctx.time.now() - start;
        socket.destroy();
      },
    })
    .networkFaults("none")
    .setBaseSeed(1)
    .setIterations(1)
    .run();
  expect(report.failedRuns, report.toString()).toBe(0);
  return elapsedMs;
}

it("an empty write does not push back the idle timeout; a write with bytes does", async () => {
  expect(await idleTimeoutAfter("")).toBeCloseTo(500, 6);
  expect(await idleTimeoutAfter("x")).toBeGreaterThanOrEqual(800);
});
