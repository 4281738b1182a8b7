/**
 * Exact clocks (`.clockFaults("none")`) in these simulations: they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import dgram from "node:dgram";
import dns from "node:dns";
import { lookup } from "node:dns/promises";
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CONSOLE_EVENT_NAME, SimulationBuilder, TraceCursor, type SimContext, type Workload } from "../src/index.ts";

const NEVER_WRITTEN = join(tmpdir(), "moonpool-escape-never-written");
const workload = (run: (ctx: SimContext) => Promise<void>): Workload => ({ name: "w", run });

async function runOnce(
  run: (ctx: SimContext) => Promise<void>,
  configure: (b: SimulationBuilder) => SimulationBuilder = (b) => b,
) {
  return configure(
    new SimulationBuilder()
      .clockFaults("none")
      .workloadFactory(() => workload(run))
      .setDebugSeeds([11])
      .setIterations(1),
  ).run();
}

describe("escape guard", () => {
  const escapes: [string, (ctx: SimContext) => unknown][] = [
    ["Math.random", () => Math.random()],
    ["Date.now", () => Date.now()],
    ["Date", () => new Date()],
    ["performance.now", () => performance.now()],
    ["process.hrtime", () => process.hrtime.bigint()],
    ["setTimeout", () => setTimeout(() => {}, 1)],
    ["setInterval", () => setInterval(() => {}, 1)],
    ["setImmediate", () => setImmediate(() => {})],
    ["AbortSignal.timeout", () => AbortSignal.timeout(5)],
    ["crypto.getRandomValues", () => crypto.getRandomValues(new Uint8Array(4))],
    ["crypto.randomUUID", () => randomUUID()],
  ];
  for (const [name, call] of escapes) {
    it(`fails the seed when simulated code calls ${name}, naming the call, the actor and the stack`, async () => {
      const report = await runOnce(async (ctx) => {
        await ctx.time.sleep(1);
        try {
          call(ctx);
        } catch {
          // Swallowing the error does not hide the escape.
        }
      });
      expect(report.failedRuns).toBe(1);
      const f = report.seeds[0]!.failures.find((x) => x.kind === "escape")!;
      expect(f.message).toContain(name);
      expect(f.actor).toBe("w@10.0.0.1");
      expect(f.stack).toContain("escape-guard.test.ts");
    });
  }

  // Real I/O: [name for allowGlobal, the call the message names, the call]. None of these may
  // reach the real world: the guard throws before the native function runs. (`net.connect`,
  // `net.createServer`, `server.listen`, `http.request` and `http2.connect` of a simulated process use the
  // simulated network instead: test/node-net.)
  const ioEscapes: [string, string, () => unknown][] = [
    // `new net.Socket()` itself gives a simulated socket (pg's way to connect); a subclass, which the
    // simulated network does not make, keeps the real one.
    ["net", "net.Socket.connect", () => new (class extends net.Socket {})().connect(1, "127.0.0.1")],
    ["tls", "tls.connect", () => tls.connect(1, "127.0.0.1")],
    ["http", "https.get", () => https.get("https://127.0.0.1:1/")],
    ["fetch", "fetch", () => fetch("http://127.0.0.1:1/")],
    ["dgram", "dgram.createSocket", () => dgram.createSocket("udp4")],
    ["dns", "dns.lookup", () => dns.lookup("localhost", () => {})],
    ["dns", "dns.promises.lookup", () => lookup("localhost")], // an ESM named import
    ["fs", "fs.promises.readFile", () => readFile(fileURLToPath(import.meta.url))], // an ESM named import
    ["fs", "fs.writeFileSync", () => writeFileSync(NEVER_WRITTEN, "x")],
    ["child_process", "child_process.spawn", () => spawn("true")],
  ];
  for (const [name, call, io] of ioEscapes) {
    it(`fails the seed when simulated code does real I/O with ${call}, naming the call, the actor and what to use`, async () => {
      const report = await runOnce(async (ctx) => {
        await ctx.time.sleep(1);
        try {
          io();
        } catch {
          // Swallowing the error does not hide the escape.
        }
      });
      expect(report.failedRuns).toBe(1);
      const f = report.seeds[0]!.failures.find((x) => x.kind === "escape")!;
      expect(f.message).toContain(`simulated code called ${call} (actor w@10.0.0.1)`);
      expect(f.message).toContain(`builder.allowGlobal("${name}")`);
      expect(f.stack).toContain("escape-guard.test.ts");
    });
  }

  it('leaves synchronous reads open (module loading uses them) and lets allowGlobal("fs") through', async () => {
    const reads = await runOnce(async () => void readFileSync(fileURLToPath(import.meta.url)));
    expect(reads.failedRuns).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), "moonpool-escape-"));
    try {
      const file = join(dir, "allowed.txt");
      const allowed = await runOnce(
        async () => writeFileSync(file, "written"),
        (b) => b.allowGlobal("fs"),
      );
      expect(allowed.failedRuns).toBe(0);
      expect(readFileSync(file, "utf8")).toBe("written");
      const stillGuarded = await runOnce(
        async () => void dgram.createSocket("udp4"),
        (b) => b.allowGlobal("fs"),
      );
      expect(stillGuarded.failedRuns).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("allows a named global when the builder relaxes it, and keeps guarding the others", async () => {
    const allowed = await runOnce(
      async () => void Math.random(),
      (b) => b.allowGlobal("Math.random"),
    );
    expect(allowed.failedRuns).toBe(0);
    const other = await runOnce(
      async () => void Date.now(),
      (b) => b.allowGlobal("Math.random"),
    );
    expect(other.failedRuns).toBe(1);
  });

  it("allows deterministic uses: new Date(ms), hashing", async () => {
    const report = await runOnce(async () => {
      void new Date(0).toISOString();
      void createHash("sha256").update("x").digest("hex");
    });
    expect(report.failedRuns).toBe(0);
  });

  // The wrappers go in once, when the engine loads, and stay: a library that captured one at
  // import time must keep the guarded function (reliability/escape-probes.test.ts).
  it("leaves the same global functions in place after a run", async () => {
    const before = {
      random: Math.random,
      now: Date.now,
      Date: globalThis.Date,
      setTimeout: globalThis.setTimeout,
      fetch: globalThis.fetch,
      netConnect: net.connect,
      socketConnect: net.Socket.prototype.connect,
      readFile,
    };
    await runOnce(async (ctx) => ctx.time.sleep(1));
    expect(Math.random).toBe(before.random);
    expect(Date.now).toBe(before.now);
    expect(globalThis.Date).toBe(before.Date);
    expect(globalThis.setTimeout).toBe(before.setTimeout);
    expect(globalThis.fetch).toBe(before.fetch);
    expect(net.connect).toBe(before.netConnect);
    expect(net.Socket.prototype.connect).toBe(before.socketConnect);
    expect((await import("node:fs/promises")).readFile).toBe(before.readFile);
  });
});

describe("console capture", () => {
  it("turns console output of simulated code into trace events with actor and time", async () => {
    const lines: { source: string; text: string; timeMs: number }[] = [];
    const cursor = new TraceCursor();
    const report = await runOnce(
      async (ctx) => {
        await ctx.time.sleep(7);
        console.log("hello from %s", "the simulation");
        console.error("bad news");
      },
      (b) =>
        b.invariantFn("collect", (q) => {
          for (const e of q.since(CONSOLE_EVENT_NAME, cursor))
            lines.push({ source: e.source, text: e.str("text")!, timeMs: e.timeMs });
        }),
    );
    expect(report.failedRuns).toBe(0);
    expect(lines).toEqual([
      { source: "w@10.0.0.1", text: "hello from the simulation", timeMs: 7 },
      { source: "w@10.0.0.1", text: "bad news", timeMs: 7 },
    ]);
  });
});

describe("quiescence under Vitest, which swaps process.nextTick around console output", () => {
  it("never runs a step while continuations of the previous one are pending, even with console output and nextTick chains", async () => {
    let inFlight = 0;
    let checks = 0;
    let violations = 0;
    const deepWork = async (depth: number): Promise<void> => {
      if (depth === 0) return;
      await null;
      await deepWork(depth - 1);
    };
    const tickChain = (n: number) =>
      new Promise<void>((resolve) => {
        const step = (k: number) => (k === 0 ? resolve() : process.nextTick(() => step(k - 1)));
        step(n);
      });
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .workloadFactory(() =>
        workload(async (ctx) => {
          for (let i = 0; i < 5000; i++) {
            await ctx.time.sleep(1);
            inFlight++;
            // Fire-and-forget work that must still finish before the next step.
            void (async () => {
              console.log("step", i);
              await deepWork(20);
              await tickChain(5);
              await Promise.race([Promise.all([deepWork(3), tickChain(2)]), new Promise(() => {})]);
              inFlight--;
            })();
          }
        }),
      )
      .invariantFn("quiescent", () => {
        checks++;
        if (inFlight !== 0) violations++;
      })
      .setDebugSeeds([1])
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(0);
    expect(checks).toBeGreaterThan(5000);
    expect(violations).toBe(0);
  });
});
