/**
 * A process whose transport holds outgoing connections, shut down gracefully: the shutdown rejects
 * every pending sleep with an AbortError, the peers' ping loops included, and none of that may
 * escape as an unhandled rejection (it would fail the seed of any system that reboots its clients).
 */
import { describe, expect, it } from "vitest";
import {
  defineService,
  SimulationBuilder,
  Transport,
  TransportError,
  type FaultContext,
  type FaultInjector,
  type Process,
  type SimContext,
} from "@moonpool/sim";

interface Echo {
  echo(request: number): Promise<number>;
}
const EchoService = defineService<Echo>("shutdown-test-echo", { echo: true });
const PORT = 7400;

class EchoServer implements Process {
  readonly name = "server";
  async run(ctx: SimContext): Promise<void> {
    const transport = new Transport(ctx);
    transport.serve(EchoService, { echo: async (n) => n });
    await transport.listen(`${ctx.myIp}:${PORT}`);
    await new Promise<void>((resolve) => ctx.shutdown.addEventListener("abort", () => resolve()));
    await transport.close();
  }
}

/** Calls the server now and then over one outgoing peer (pings every 50 ms) until shut down. */
class Caller implements Process {
  readonly name = "caller";
  async run(ctx: SimContext): Promise<void> {
    const transport = new Transport(ctx, { peer: { pingIntervalMs: 50, pingTimeoutMs: 100 } });
    const [server] = ctx.topology.ipsInGroup("server");
    const echo = transport.stub(EchoService, `${server}:${PORT}`).echo;
    try {
      for (let i = 0; !ctx.shutdown.aborted; i++) {
        await echo.tryGetReply(i, { timeoutMs: 200 }).catch((error: unknown) => {
          if (!(error instanceof TransportError)) throw error;
        });
        await ctx.time.sleep(ctx.random.randomRange(10, 80));
      }
    } catch (error) {
      if (!ctx.shutdown.aborted) throw error;
    }
    await transport.close();
  }
}

/** Gracefully reboots the caller every 150-400 ms of the chaos window. */
class CallerShutdowns implements FaultInjector {
  readonly name = "caller-shutdowns";
  async inject(ctx: FaultContext): Promise<void> {
    const [caller] = ctx.topology.ipsInGroup("caller");
    for (;;) {
      await ctx.time.sleep(ctx.random.randomRange(150, 400));
      if (!ctx.isDead(caller!)) ctx.rebootWithDelays(caller!, "graceful", [20, 100], [10, 50]);
    }
  }
}

function simulation(shutdowns: boolean): SimulationBuilder {
  const builder = new SimulationBuilder()
    .processes(1, () => new EchoServer())
    .processes(1, () => new Caller())
    .workloadFactory(() => ({ name: "clock", run: (ctx: SimContext) => ctx.time.sleep(2_000) }))
    .chaosDuration(1_500)
    .networkFaults("none");
  if (shutdowns) builder.faultFactory(() => new CallerShutdowns());
  return builder;
}

function gracefulReboots(report: Awaited<ReturnType<SimulationBuilder["run"]>>): number {
  return report.seeds.reduce((n, s) => n + (s.chaos.reboots?.graceful ?? 0), 0);
}

describe("transport: graceful shutdown of a process with outgoing peers", () => {
  it("the peers' pending pings end quietly: every seed passes", async () => {
    const report = await simulation(true).setBaseSeed(7).setIterations(6).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(gracefulReboots(report)).toBeGreaterThan(6);
  });

  it("without shutdowns there are no reboots (the case above is the one exercised)", async () => {
    const report = await simulation(false).setBaseSeed(7).setIterations(2).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(gracefulReboots(report)).toBe(0);
  });

  it("replays a seed to the same trace hash; two seeds differ", async () => {
    const a = await simulation(true).setBaseSeed(3).setIterations(2).run();
    const b = await simulation(true).setBaseSeed(3).setIterations(2).run();
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(a.seeds[0]!.traceHash).not.toBe(a.seeds[1]!.traceHash);
  });
});
