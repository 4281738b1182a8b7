/**
 * `new net.Socket()` then `socket.connect(port, host)`, the way `pg` connects: from a simulated
 * process it is a simulated socket; outside any seed, and for subclasses, it is Node's own.
 */
import net from "node:net";
import tls from "node:tls";
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";

const PORT = 7100;

function simulation(client: (ctx: SimContext) => Promise<void>, seed = 41): SimulationBuilder {
  return new SimulationBuilder()
    .processes(1, () => ({
      name: "server",
      run: async (ctx: SimContext) => {
        net.createServer((socket) => socket.on("data", (chunk) => socket.end(`echo ${chunk}`))).listen(PORT);
        await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve));
      },
    }))
    .workload({ name: "client", run: client })
    .setBaseSeed(seed)
    .setIterations(2);
}

function exchange(ctx: SimContext, seen: string[]): Promise<void> {
  return new Promise((resolve) => {
    const socket = new net.Socket();
    socket.connect(PORT, ctx.topology.processIps[0]!);
    socket.on("connect", () => seen.push(`connect at ${ctx.time.now()}`));
    socket.on("data", (chunk) => seen.push(`data ${chunk}`));
    socket.on("close", () => resolve());
    socket.write("hi");
  });
}

describe("new net.Socket() in a seed", () => {
  it("connects over the simulated network and exchanges bytes", async () => {
    const seen: string[] = [];
    const report = await simulation(async (ctx) => {
      await ctx.time.sleep(10);
      await exchange(ctx, seen);
    })
      .networkFaults("none")
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen.filter((e) => e.startsWith("data"))).toEqual(["data echo hi", "data echo hi"]);
    expect(seen.filter((e) => e.startsWith("connect"))).toHaveLength(2);
  });

  it("the same seed twice under network chaos gives the same hashes, and two seeds differ", async () => {
    const run = () =>
      simulation(async (ctx) => {
        await ctx.time.sleep(10);
        await exchange(ctx, []).catch(() => {});
      }).run();
    const a = await run();
    const b = await run();
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(2);
  });

  it("outside a seed it is Node's socket, and subclasses still construct Node's", () => {
    const socket = new net.Socket();
    expect(socket).toBeInstanceOf(net.Socket);
    expect(Object.getPrototypeOf(socket)).toBe(net.Socket.prototype);
    socket.destroy();
    class Mine extends net.Socket {}
    const mine = new Mine();
    expect(mine).toBeInstanceOf(Mine);
    mine.destroy();
    expect(new tls.TLSSocket(new net.Socket())).toBeInstanceOf(net.Socket);
  });
});
