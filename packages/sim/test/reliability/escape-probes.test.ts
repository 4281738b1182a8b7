import { BroadcastChannel, MessageChannel } from "node:worker_threads";
import { createDiffieHellman, createECDH, generateKeyPairSync, getDiffieHellman, webcrypto } from "node:crypto";
import dns from "node:dns";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeSync,
} from "node:fs";
import v8 from "node:v8";
import vm from "node:vm";
import { mkdtemp, opendir } from "node:fs/promises";
import os, { freemem } from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scheduler } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";
import { captured } from "./captured-at-import.ts";

type AnyFunction = (...args: unknown[]) => unknown;

const dir = mkdtempSync(join(tmpdir(), "moonpool-probes-"));
const existing = join(dir, "existing");
closeSync(openSync(existing, "w"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** [what the failure message names, the call] for every entry point that must not reach the real world. */
const PROBES: [string, () => unknown][] = [
  ["Math.random", () => captured.random()],
  ["Date.now", () => captured.now()],
  ["crypto.randomBytes", () => captured.bytes()],
  ["performance.timeOrigin", () => performance.timeOrigin],
  ["os.freemem", () => freemem()],
  ["os.uptime", () => os.uptime()],
  ["fs.openSync", () => openSync(join(dir, "never"), "w")],
  ["fs.writeSync", () => writeSync(1, "x")],
  ["fs.truncateSync", () => truncateSync(existing, 0)],
  ["fs.symlinkSync", () => symlinkSync(existing, join(dir, "link"))],
  ["MessageChannel", () => new MessageChannel()],
  ["MessageChannel", () => new globalThis.MessageChannel()],
  ["BroadcastChannel", () => new BroadcastChannel("probe")],
  ["crypto.subtle", () => webcrypto.subtle],
  ["crypto.subtle", () => globalThis.crypto.subtle.digest("SHA-256", new Uint8Array(1))],
  [
    "Atomics.waitAsync",
    () =>
      (Atomics as unknown as { waitAsync: AnyFunction }).waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10),
  ],
  ["timers/promises.scheduler.wait", () => scheduler.wait(1)],
  ["timers/promises.scheduler.yield", () => scheduler.yield()],
  ["fs.promises.mkdtemp", () => mkdtemp(join(dir, "x-"))],
  ["fs.promises.opendir", () => opendir(dir)],
  ["performance.mark", () => performance.mark("probe")],
  ["process.uptime", () => process.uptime()],
  ["process.cpuUsage", () => process.cpuUsage()],
  ["process.memoryUsage", () => process.memoryUsage()],
  ["crypto.generateKeyPairSync", () => generateKeyPairSync("ed25519")],
  // What the machine leaks besides clocks and randomness.
  ["fs.readFileSync", () => readFileSync("/etc/hostname")],
  ["fs.statSync", () => statSync("/proc/meminfo")],
  ["fs.readdirSync", () => readdirSync("/etc")],
  ["fs.existsSync", () => existsSync(join(dir, "existing"))],
  ["fs.openSync", () => openSync(existing, "r")],
  ["os.homedir", () => os.homedir()],
  ["os.tmpdir", () => tmpdir()],
  ["process.getuid", () => process.getuid?.()],
  ["process.constrainedMemory", () => process.constrainedMemory()],
  ["vm.runInNewContext", () => vm.runInNewContext("Math.random()")],
  ["vm.createContext", () => vm.createContext({})],
  ["vm.Script.prototype.runInNewContext", () => new vm.Script("Math.random()").runInNewContext()],
  ["crypto.ECDH.prototype.generateKeys", () => createECDH("prime256v1").generateKeys()],
  ["crypto.DiffieHellman.prototype.generateKeys", () => getDiffieHellman("modp14").generateKeys()],
  ["crypto.createDiffieHellman", () => createDiffieHellman(512)],
  ["v8.getHeapStatistics", () => v8.getHeapStatistics()],
  ["v8.getHeapSpaceStatistics", () => v8.getHeapSpaceStatistics()],
  ["dns.Resolver.prototype.resolve4", () => new dns.Resolver().resolve4("localhost", () => {})],
  ["dns.promises.Resolver.prototype.resolve", () => new dns.promises.Resolver().resolve("localhost")],
  ["dns.getServers", () => dns.getServers()],
  ["performance.eventLoopUtilization", () => performance.eventLoopUtilization()],
];

describe("every entry point to the real world fails its seed, naming the call", () => {
  for (const mode of ["fast", "paranoid"] as const) {
    for (const [call, probe] of PROBES) {
      it(`${call} (${mode})`, async () => {
        let reached = false;
        const report = await new SimulationBuilder()
          .steppingMode(mode)
          .setDebugSeeds([3])
          .setIterations(1)
          .workloadFactory(() => ({
            name: "w",
            async run(ctx: SimContext) {
              await ctx.time.sleep(1);
              await Promise.resolve();
              try {
                void probe();
                reached = true;
              } catch {
                // The escape was recorded before the throw.
              }
            },
          }))
          .run();
        expect(reached).toBe(false);
        const failures = report.seeds[0]!.failures.filter((f) => f.kind === "escape");
        expect(failures.length).toBe(1);
        expect(failures[0]!.message).toContain(`simulated code called ${call} (actor w@10.0.0.1)`);
      });
    }
  }

  it("outside a seed the same functions behave natively (the wrappers stay installed)", () => {
    expect(typeof captured.random()).toBe("number");
    expect(captured.now()).toBeGreaterThan(0);
    expect(Intl.DateTimeFormat("en-US", { timeZone: "UTC" }).format(0)).toBe("1/1/1970");
    expect(vm.runInNewContext("typeof Math.random()")).toBe("number");
    expect(process.pid).toBeGreaterThan(0);
    expect(existsSync(existing)).toBe(true);
    expect(freemem()).toBeGreaterThan(0);
    expect(new Date(0) instanceof Date).toBe(true);
    const channel = new MessageChannel();
    expect(channel.port1).toBeDefined();
    channel.port1.close();
  });
});
