import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext, type Workload } from "../../src/index.ts";
import { thrownFields } from "../../src/runner/thrown.ts";

const client = (over: Partial<Workload> = {}): Workload => ({
  name: "client",
  async run(ctx: SimContext) {
    await ctx.time.sleep(5);
  },
  ...over,
});

/** Failure messages (kind: message) of each seed. */
async function failures(builder: SimulationBuilder, iterations = 1): Promise<string[][]> {
  const report = await builder.setBaseSeed(5).setIterations(iterations).run();
  return report.seeds.map((s) => s.failures.map((f) => `${f.kind}: ${f.message}`));
}

describe("failure messages say where user code threw", () => {
  it("a process constructor that throws on boot: the group and the actor it was booting", async () => {
    let booted = 0;
    class Node {
      readonly name = "node";
      constructor() {
        // The builder calls the factory once to learn the group's name; the boot is the second call.
        if (booted++ > 0) throw new Error("port already bound");
      }
      async run(ctx: SimContext) {
        await ctx.time.sleep(10);
      }
    }
    const result = await failures(
      new SimulationBuilder().processes(1, () => new Node()).workloadFactory(() => client()),
    );
    expect(result).toEqual([
      ["process: process factory for 'node' threw while booting node@10.0.1.1: Error: port already bound"],
    ]);
  });

  it("an invariant whose reset() throws: the invariant and the method", async () => {
    const invariant = {
      name: "balance",
      observe() {},
      reset() {
        throw new Error("ledger missing");
      },
    };
    const result = await failures(new SimulationBuilder().workloadFactory(() => client()).invariant(invariant));
    expect(result).toEqual([["invariant: invariant 'balance' reset() threw: Error: ledger missing"]]);
  });

  it("a fault factory that throws: faultFactory()", async () => {
    const builder = new SimulationBuilder()
      .workloadFactory(() =>
        client({
          async run(ctx: SimContext) {
            await ctx.time.sleep(50);
          },
        }),
      )
      .chaosDuration(20)
      .faultFactory(() => {
        throw new Error("no injector today");
      });
    expect(await failures(builder)).toEqual([["faultInjector: faultFactory() threw: Error: no injector today"]]);
  });

  it("a workload factory that throws in one seed fails that seed as setup, and the campaign goes on", async () => {
    let created = 0;
    const builder = new SimulationBuilder().workloadFactory(() => {
      if (++created === 2) throw new Error("config file missing");
      return client();
    });
    expect(await failures(builder, 3)).toEqual([
      [],
      ["setup: creating workload #0 (its factory) threw: Error: config file missing"],
      [],
    ]);
  });

  it("without a throwing factory the same simulation has no failure: the messages come from the throws", async () => {
    expect(await failures(new SimulationBuilder().workloadFactory(() => client()))).toEqual([[]]);
  });
});

describe("a thrown value's text", () => {
  it("shows causes, aggregated errors and values that are not Errors as Node's inspect does", () => {
    expect(thrownFields(new Error("outer", { cause: new TypeError("inner") })).message).toBe(
      "Error: outer (cause: TypeError: inner)",
    );
    expect(thrownFields(new AggregateError([new Error("a"), "b"], "all failed")).message).toBe(
      "AggregateError: all failed [Error: a; b]",
    );
    expect(thrownFields({ code: "E1", message: "plain object" })).toEqual({
      message: "{ code: 'E1', message: 'plain object' }",
    });
    expect(thrownFields(Object.create(null)).message).toBe("[Object: null prototype] {}");
    expect(thrownFields(undefined).message).toBe("undefined");
    expect(thrownFields("text").message).toBe("text");
    expect(thrownFields(new Error()).message).toBe("Error (with no message)");
    expect(thrownFields(new RangeError("r")).stack).toContain("RangeError: r");
  });
});
