/**
 * The transport's delivery modes under one fault family at a time (drops by corruption, random
 * closes, partitions, server crashes), on the full simulator. A server logs every execution; an
 * invariant holds each mode to its promise while the faults run:
 *
 * - at most once (`tryGetReply`): never executed twice;
 * - `ConnectionFailed` (never sent): never executed; a reply: executed;
 * - `MaybeDelivered`: reported only for requests that were sent, and seen both for requests that
 *   ran and for ones that did not (the outcome really is unknown; under partitions alone the
 *   bytes already sent arrive after the heal, so those requests all ran);
 * - at least once (`getReply`): answered once the chaos window is over and the network healed.
 */
import { describe, expect, it } from "vitest";
import {
  BrokenPromise,
  ConnectionFailed,
  defineService,
  MaybeDelivered,
  NETWORK_NO_FAULTS,
  RequestTimeout,
  SimulationBuilder,
  TraceCursor,
  Transport,
  assertAlways,
  assertSometimes,
  isAbortError,
  type FaultContext,
  type FaultInjector,
  type NetworkConfig,
  type SimContext,
  type TraceQuery,
} from "../src/index.ts";

interface Ledger {
  apply(request: { op: number; mode: Mode }): Promise<{ op: number }>;
}
type Mode = "try" | "get" | "unless-failed";
const LedgerService = defineService<Ledger>("delivery-ledger", { apply: true });
const PORT = 7400;
const CHAOS_MS = 3_000;

class LedgerServer {
  readonly name = "server";
  async run(ctx: SimContext): Promise<void> {
    const transport = new Transport(ctx);
    await transport.listen(`${ctx.myIp}:${PORT}`);
    transport.serve(LedgerService, {
      apply: async ({ op, mode }) => {
        ctx.trace.info("executed", { op, mode });
        await ctx.time.sleep(ctx.random.randomRange(0, 20));
        return { op };
      },
    });
    while (!ctx.shutdown.aborted) await ctx.time.sleep(100);
    await transport.close();
  }
}

class LedgerClient {
  readonly name = "client";
  async run(ctx: SimContext): Promise<void> {
    const transport = new Transport(ctx, { peer: { pingIntervalMs: 200, pingTimeoutMs: 300, toleratedPingMisses: 1 } });
    const ledger = transport.stub(LedgerService, `${ctx.topology.ipsInGroup("server")[0]!}:${PORT}`);
    let op = 0;
    while (ctx.time.now() < CHAOS_MS) {
      op += 1;
      const mode: Mode = (["try", "get", "unless-failed"] as const)[op % 3]!;
      let result: string;
      try {
        if (mode === "try") await ledger.apply.tryGetReply({ op, mode }, { timeoutMs: 150 });
        else if (mode === "get") await ledger.apply.getReply({ op, mode }, { timeoutMs: 400 });
        else await ledger.apply.getReplyUnlessFailedFor({ op, mode }, 300);
        result = "reply";
      } catch (error) {
        if (error instanceof MaybeDelivered) result = "maybe-delivered";
        else if (error instanceof ConnectionFailed) result = "connection-failed";
        else if (error instanceof RequestTimeout) result = "timeout";
        else if (error instanceof BrokenPromise)
          result = "broken-promise"; // the server shut down with it in hand
        else throw error;
      }
      ctx.trace.info("outcome", { op, mode, result });
      await ctx.time.sleep(ctx.random.randomRange(1, 10));
    }
    await ctx.time.sleep(2_000); // healed: faults off, partitions gone, the server back up
    for (let i = 0; i < 3; i++) {
      op += 1;
      const answered = await ledger.apply.getReply({ op, mode: "get" }, { timeoutMs: 20_000 }).then(
        () => true,
        (error: unknown) => (isAbortError(error) ? true : error),
      );
      assertAlways(answered === true, "at least once: answered after the heal");
    }
    await transport.close();
  }
}

class DeliveryInvariant {
  readonly name = "delivery";
  private readonly executedCursor = new TraceCursor();
  private readonly outcomeCursor = new TraceCursor();
  private readonly runs = new Map<number, number>();
  private readonly pendingMaybe: number[] = [];

  observe(query: TraceQuery): void {
    for (const event of query.since("executed", this.executedCursor)) {
      const op = event.num("op")!;
      const runs = (this.runs.get(op) ?? 0) + 1;
      this.runs.set(op, runs);
      if (event.str("mode") === "try") assertAlways(runs === 1, "at most once: never executed twice", { op });
    }
    for (const event of query.since("outcome", this.outcomeCursor)) {
      const op = event.num("op")!;
      const result = event.str("result");
      if (result === "connection-failed") assertAlways(!this.runs.has(op), "never sent: never executed", { op });
      if (result === "reply") assertAlways(this.runs.has(op), "a reply: executed", { op });
      if (result === "maybe-delivered") this.pendingMaybe.push(op);
    }
  }

  /** Called from the workload's check: whether each maybe-delivered request ran, once the dust settled. */
  settle(): void {
    for (const op of this.pendingMaybe) {
      assertSometimes(this.runs.has(op), "maybe delivered, and it ran");
      assertSometimes(!this.runs.has(op), "maybe delivered, and it did not run");
    }
  }

  reset(): void {
    this.executedCursor.reset();
    this.outcomeCursor.reset();
    this.runs.clear();
    this.pendingMaybe.length = 0;
  }
}

function deliverySimulation(family: "drops" | "closes" | "partitions" | "crashes"): SimulationBuilder {
  const invariant = new DeliveryInvariant();
  const builder = new SimulationBuilder()
    .processes(1, () => new LedgerServer())
    .workloadFactory(() => ({
      name: "client",
      run: (ctx: SimContext) => new LedgerClient().run(ctx),
      check: async () => invariant.settle(),
    }))
    .invariant(invariant)
    .chaosDuration(CHAOS_MS);
  const network: Record<typeof family, Partial<NetworkConfig>> = {
    drops: { bitFlipProbability: 0.02, bitFlipMinBits: 1, bitFlipMaxBits: 4 },
    closes: { randomCloseProbability: 0.01, randomCloseExplicitRatio: 0.5 },
    partitions: {
      partitionProbability: 0.05,
      partitionDurationUs: [50_000, 800_000],
      partitionStrategy: "isolateSingle",
    },
    crashes: {},
  };
  builder.networkFaults({ ...NETWORK_NO_FAULTS, ...network[family] });
  if (family === "crashes") builder.faultFactory(() => new ServerReboots());
  return builder;
}

/** Reboots the server every 100-500 ms of the chaos window: three crashes for one graceful shutdown. */
class ServerReboots implements FaultInjector {
  readonly name = "server-reboots";
  async inject(ctx: FaultContext): Promise<void> {
    const [server] = ctx.topology.ipsInGroup("server");
    for (;;) {
      await ctx.time.sleep(ctx.random.randomRange(100, 500));
      const kind = ctx.random.randomRange(0, 4) === 0 ? "graceful" : "crash";
      if (!ctx.isDead(server!)) ctx.rebootWithDelays(server!, kind, [20, 200], [10, 50]);
    }
  }
}

function statusOf(report: Awaited<ReturnType<SimulationBuilder["run"]>>): Record<string, string> {
  return Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
}

const ALWAYS = ["at most once: never executed twice", "a reply: executed", "at least once: answered after the heal"];

describe("transport delivery modes under faults (simulated)", () => {
  for (const family of ["drops", "closes", "partitions", "crashes"] as const) {
    it(`${family}: every mode keeps its promise, and maybe-delivered covers both fates`, async () => {
      const report = await deliverySimulation(family).setBaseSeed(11).setIterations(12).run();
      expect(report.failedRuns, report.toString()).toBe(0);
      const status = statusOf(report);
      for (const message of ALWAYS) expect(status[message], message).toBe("PASS");
      // Requests that never left happen when connects fail: while the server is down or cut off.
      if (family === "partitions" || family === "crashes") expect(status["never sent: never executed"]).toBe("PASS");
      expect(status["maybe delivered, and it ran"], "maybe delivered, and it ran").toBe("PASS");
      // A partition delays the bytes already sent (like TCP): those requests still ran.
      const didNotRun = "maybe delivered, and it did not run";
      if (family !== "partitions") expect(status[didNotRun], didNotRun).toBe("PASS");
    });
  }

  it("without faults nothing is maybe-delivered and every request is answered", async () => {
    const report = await new SimulationBuilder()
      .processes(1, () => new LedgerServer())
      .workloadFactory(() => new LedgerClient())
      .invariant(new DeliveryInvariant())
      .networkFaults("none")
      .setBaseSeed(3)
      .setIterations(3)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(report.assertionDetails.find((d) => d.message === "a reply: executed")!.failCount).toBe(0);
    expect(report.assertionDetails.some((d) => d.message.startsWith("maybe delivered"))).toBe(false);
  });

  it("replays a seed to the same trace hash; two seeds differ", async () => {
    const a = await deliverySimulation("closes").setBaseSeed(21).setIterations(3).run();
    const b = await deliverySimulation("closes").setBaseSeed(21).setIterations(3).run();
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(3);
  });
});
