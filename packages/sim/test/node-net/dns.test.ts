/**
 * Simulated DNS: host names of processes (`web-0`), group names (live members), aliases; the
 * `node:dns` calls and the lookups inside `net` and `http`; Node's error shapes; the DNS fault
 * family on and off (slow, ENOTFOUND/EAI_AGAIN, stale group answers after a crash); determinism.
 */
import dns from "node:dns";
import http from "node:http";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { Chaos, SimulationBuilder, type FaultContext, type SimContext } from "../../src/index.ts";

const PORT = 8080;

function web() {
  return {
    name: "web",
    run: async (ctx: SimContext) => {
      http.createServer((_req, res) => res.end(`hi from ${ctx.myIp}`)).listen(PORT);
      await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
    },
  };
}

function errorFields(error: unknown): Record<string, unknown> {
  const e = error as Record<string, unknown>;
  return { message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, hostname: e.hostname };
}

function client(body: (ctx: SimContext) => Promise<void>) {
  return { name: "client", run: async (ctx: SimContext) => body(ctx) };
}

describe("simulated DNS", () => {
  it("resolves process names, group names and aliases through dns, dns.promises, Resolver, net and http", async () => {
    const seen: Record<string, unknown> = {};
    const report = await new SimulationBuilder()
      .processes(2, web)
      .dns({ aliases: { orders: "web-1", api: "web" } })
      .workload(
        client(async (ctx) => {
          await ctx.time.sleep(10);
          seen.lookup = await new Promise((resolve) =>
            dns.lookup("web-0", (error, address, family) => resolve([error, address, family])),
          );
          seen.group = await dns.promises.lookup("WEB.", { all: true });
          seen.alias = await dns.promises.lookup("orders");
          seen.resolver = await new dns.promises.Resolver().resolve4("api");
          seen.ttl = await new Promise((resolve) => dns.resolve4("web-1", { ttl: true }, (_e, r) => resolve(r)));
          seen.reverse = await dns.promises.reverse("10.0.1.2");
          seen.txt = await dns.promises.resolveTxt("web-0").catch(errorFields);
          seen.missing = await dns.promises.lookup("nowhere").catch(errorFields);
          seen.missingQuery = await dns.promises.resolve4("nowhere").catch(errorFields);
          seen.http = await new Promise((resolve) => {
            http.get({ host: "orders", port: PORT, path: "/" }, (res) => {
              let body = "";
              res.on("data", (c) => (body += c));
              res.on("end", () => resolve(body));
            });
          });
          seen.net = await new Promise((resolve) => {
            const socket = net.connect(PORT, "nowhere");
            const events: unknown[] = [];
            socket.on("lookup", (error: NodeJS.ErrnoException | null, address) =>
              events.push(["lookup", error?.code ?? null, address]),
            );
            socket.on("error", (error) => resolve([...events, errorFields(error)]));
          });
        }),
      )
      .nodeRuntime()
      .networkFaults("none")
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen.lookup).toEqual([null, "10.0.1.1", 4]);
    expect(seen.group).toEqual([
      { address: "10.0.1.1", family: 4 },
      { address: "10.0.1.2", family: 4 },
    ]);
    expect(seen.alias).toEqual({ address: "10.0.1.2", family: 4 });
    expect(seen.resolver).toEqual(["10.0.1.1", "10.0.1.2"]);
    expect(seen.ttl).toEqual([{ address: "10.0.1.2", ttl: 0 }]);
    expect(seen.reverse).toEqual(["web-1"]);
    expect(seen.txt).toMatchObject({ code: "ENODATA", syscall: "queryTxt", hostname: "web-0" });
    expect(seen.missing).toEqual({
      message: "getaddrinfo ENOTFOUND nowhere",
      code: "ENOTFOUND",
      errno: -3008,
      syscall: "getaddrinfo",
      hostname: "nowhere",
    });
    expect(seen.missingQuery).toMatchObject({ message: "queryA ENOTFOUND nowhere", code: "ENOTFOUND" });
    expect(seen.http).toBe("hi from 10.0.1.2");
    expect(seen.net).toEqual([
      ["lookup", "ENOTFOUND", undefined],
      {
        message: "getaddrinfo ENOTFOUND nowhere",
        code: "ENOTFOUND",
        errno: -3008,
        syscall: "getaddrinfo",
        hostname: "nowhere",
      },
    ]);
  });

  it("argument errors are Node's, thrown at the call", async () => {
    const thrown: unknown[] = [];
    const report = await new SimulationBuilder()
      .processes(1, web)
      .workload(
        client(async () => {
          for (const call of [
            () => dns.lookup(5 as unknown as string, () => {}),
            () => dns.resolve("web", "BOGUS", () => {}),
          ]) {
            try {
              call();
            } catch (error) {
              thrown.push((error as { code: string }).code);
            }
          }
        }),
      )
      .nodeRuntime()
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(thrown).toEqual(["ERR_INVALID_ARG_TYPE", "ERR_INVALID_ARG_VALUE"]);
  });

  /** 40 lookups of `web-0`, each with its outcome and how long it took. */
  function lookups(builder: SimulationBuilder, outcomes: string[]): SimulationBuilder {
    return builder.processes(1, web).workload(
      client(async (ctx) => {
        for (let i = 0; i < 40; i++) {
          const start = ctx.time.now();
          const outcome = await dns.promises.lookup("web-0").then(
            (r) => r.address,
            (e: { code: string }) => e.code,
          );
          outcomes.push(`${outcome} ${ctx.time.now() - start >= 50 ? "slow" : "fast"}`);
        }
      }),
    );
  }

  it("DNS faults off (the default): every lookup answers at once", async () => {
    const outcomes: string[] = [];
    const report = await lookups(new SimulationBuilder(), outcomes).nodeRuntime().setIterations(1).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(new Set(outcomes)).toEqual(new Set(["10.0.1.1 fast"]));
    expect(report.seeds[0]!.chaos.dns).toBeUndefined();
  });

  it("DNS faults on: failures with ENOTFOUND and EAI_AGAIN, slow answers", async () => {
    const outcomes: string[] = [];
    const faults = {
      slowProbability: 0.5,
      slowDelayMs: [100, 200] as const,
      failureProbability: 0.5,
      tryAgainShare: 0.5,
    };
    const report = await lookups(new SimulationBuilder(), outcomes)
      .dns({ faults })
      .nodeRuntime()
      .setBaseSeed(8)
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    // A failure's speed does not matter here: its error code is what is checked.
    const kinds = new Set(outcomes.map((o) => (o.startsWith("10.") ? o : o.split(" ")[0])));
    for (const kind of ["10.0.1.1 fast", "10.0.1.1 slow", "ENOTFOUND", "EAI_AGAIN"]) expect(kinds).toContain(kind);
    expect(report.seeds[0]!.chaos.dns?.mode).toBe("custom");
  });

  /** A group of two; member 1 crashes at 100 ms and comes back at 1,100 ms; the client looks the group up. */
  function staleRun(staleMs: number, answers: string[][]): SimulationBuilder {
    // Exact clocks: the crash at 100 ms and the lookups around it are timed by the process's clock.
    return new SimulationBuilder()
      .clockFaults("none")
      .processes(2, web)
      .workload(
        client(async (ctx) => {
          await ctx.time.sleep(50);
          for (const atMs of [50, 200, 900, 1_200, 2_500]) {
            await ctx.time.sleep(atMs - ctx.time.now());
            const all = await dns.promises.lookup("web", { all: true });
            answers.push(all.map((a) => a.address));
          }
        }),
      )
      .faultFactory(() => ({
        name: "crasher",
        inject: async (ctx: FaultContext) => {
          await ctx.time.sleep(100);
          ctx.rebootWithDelays("10.0.1.2", "crash", 1_000);
        },
      }))
      .chaosDuration(3_000)
      .dns({ faults: { staleMs } })
      .networkFaults("none")
      .nodeRuntime()
      .setIterations(1);
  }

  it("a group name answers its live members; with stale answers on, the old membership lingers after a crash", async () => {
    const fresh: string[][] = [];
    expect((await staleRun(0, fresh).run()).failedRuns).toBe(0);
    const both = ["10.0.1.1", "10.0.1.2"];
    expect(fresh).toEqual([both, ["10.0.1.1"], ["10.0.1.1"], both, both]);
    const stale: string[][] = [];
    expect((await staleRun(1_000, stale).run()).failedRuns).toBe(0);
    // Held from 50 ms to 1,050 ms: the crashed member still answers at 200 and 900 ms; the answer
    // taken at 1,200 ms (member back) is fresh.
    expect(stale).toEqual([both, both, both, both, both]);
    const stale2: string[][] = [];
    expect((await staleRun(600, stale2).run()).failedRuns).toBe(0);
    // Held 50..650 ms (both), then taken fresh at 900 ms (member down) and held until 1,500 ms.
    expect(stale2).toEqual([both, both, ["10.0.1.1"], ["10.0.1.1"], both]);
  });

  function chaotic(seed: number): SimulationBuilder {
    const outcomes: string[] = [];
    return lookups(new SimulationBuilder(), outcomes)
      .enableChaos([Chaos.dns("random")])
      .nodeRuntime()
      .setBaseSeed(seed)
      .setIterations(4);
  }

  it("Chaos.dns: the same seed gives the same trace hash; other seeds differ", async () => {
    const a = await chaotic(5).run();
    const b = await chaotic(5).run();
    expect(a.failedRuns, a.toString()).toBe(0);
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(4);
    expect(a.seeds[0]!.chaos.dns?.mode).toBe("random");
  });

  it("bad options are typed errors that say what to change", () => {
    expect(() => new SimulationBuilder().dns({ aliases: { "bad name": "web" } })).toThrow(/not a host name/);
    expect(() => new SimulationBuilder().dns({ faults: { failureProbability: 2 } })).toThrow(
      /failureProbability must be a number in 0 \.\.= 1/,
    );
  });
});
