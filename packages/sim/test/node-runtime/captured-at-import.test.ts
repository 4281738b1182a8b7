/**
 * Exact clocks (`.clockFaults("none")`) in these simulations: they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
// A module that captured each virtualised global when it loaded (as lib0, memdown, ShareDB do)
// still gets the virtual value inside a seed: the wrappers were installed before it loaded.
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";
import { VIRTUAL_EPOCH_MS } from "../../src/world/node-runtime/virtual-process.ts";
import { captured } from "./fixtures/captured-globals.ts";

async function inSeed<T>(body: (ctx: SimContext) => Promise<T> | T, seed = 21): Promise<T> {
  let result: T | undefined;
  const report = await new SimulationBuilder()
    .clockFaults("none")
    .networkFaults("none")
    .nodeRuntime()
    .workloadFactory(() => ({
      name: "w",
      async run(ctx) {
        await ctx.time.sleep(2_000);
        result = await body(ctx);
      },
    }))
    .setDebugSeeds([seed])
    .setIterations(1)
    .run();
  expect(report.seeds[0]!.failures).toEqual([]);
  return result as T;
}

/** A timer API: resolves with the simulated time at which the callback ran. */
const firesAt = (ctx: SimContext, arm: (done: () => void) => void) =>
  new Promise<number>((resolve) => arm(() => resolve(ctx.time.now())));

const clocks: [string, () => unknown, unknown][] = [
  ["Date.now", () => captured.dateNow(), VIRTUAL_EPOCH_MS + 2_000],
  ["new Date()", () => new captured.DateClass().getTime(), VIRTUAL_EPOCH_MS + 2_000],
  ["performance.now (bound)", () => captured.performanceNow(), 2_000],
  ["perf_hooks performance.now", () => captured.perfHooksNow(), 2_000],
  ["performance.timeOrigin", () => captured.performance.timeOrigin, VIRTUAL_EPOCH_MS],
  ["process.hrtime", () => captured.hrtime(), [2, 0]],
  ["process.hrtime.bigint", () => captured.hrtimeBigint(), 2_000_000_000n],
];

const timers: [string, (ctx: SimContext, done: () => void) => unknown, number][] = [
  ["setTimeout", (_ctx, done) => captured.setTimeout(done, 30), 2_030],
  [
    "setInterval",
    (_ctx, done) => {
      const id = captured.setInterval(() => (captured.clearInterval(id), done()), 40);
    },
    2_040,
  ],
  ["setImmediate", (_ctx, done) => captured.setImmediate(done), 2_000],
  ["node:timers setTimeout", (_ctx, done) => captured.timers.setTimeout(done, 50), 2_050],
  [
    "node:timers clearTimeout",
    (_ctx, done) => {
      captured.timers.clearTimeout(
        captured.timers.setTimeout(() => {
          throw new Error("cleared timer fired");
        }, 5),
      );
      captured.clearImmediate(
        captured.setImmediate(() => {
          throw new Error("cleared immediate fired");
        }),
      );
      captured.clearTimeout(captured.setTimeout(done, 60));
      captured.setTimeout(done, 70);
    },
    2_070,
  ],
  ["timers/promises setTimeout", (_ctx, done) => void captured.sleep(80).then(done), 2_080],
  ["timers/promises setImmediate", (_ctx, done) => void captured.sleepImmediate().then(done), 2_000],
  [
    "timers/promises setInterval",
    (_ctx, done) => void captured.every(90)[Symbol.asyncIterator]().next().then(done),
    2_090,
  ],
  ["scheduler.wait", (_ctx, done) => void captured.scheduler.wait(15).then(done), 2_015],
  ["scheduler.yield", (_ctx, done) => void captured.scheduler.yield().then(done), 2_000],
  ["AbortSignal.timeout", (_ctx, done) => captured.abortSignalTimeout(25).addEventListener("abort", done), 2_025],
];

const randomness: [string, () => unknown][] = [
  ["Math.random", () => captured.mathRandom()],
  ["crypto.getRandomValues (bound)", () => [...captured.getRandomValues(new Uint8Array(8))]],
  ["webcrypto.getRandomValues (bound)", () => [...captured.webcryptoGetRandomValues(new Uint32Array(2))]],
  ["crypto.randomUUID (bound)", () => captured.cryptoRandomUUID()],
  ["node:crypto randomUUID", () => captured.randomUUID()],
  ["node:crypto randomBytes", () => captured.randomBytes(8).toString("hex")],
  ["node:crypto randomFillSync", () => [...captured.randomFillSync(new Uint8Array(8))]],
  ["node:crypto randomInt", () => captured.randomInt(1, 1_000_000_000)],
];

describe("globals captured at import time get the virtual runtime", () => {
  for (const [name, read, expected] of clocks) {
    it(`${name} reads simulated time`, async () => {
      expect(await inSeed(read)).toEqual(expected);
    });
  }
  for (const [name, arm, expectedMs] of timers) {
    it(`${name} fires on simulated time`, async () => {
      expect(await inSeed((ctx) => firesAt(ctx, (done) => arm(ctx, done)))).toBe(expectedMs);
    });
  }
  for (const [name, draw] of randomness) {
    it(`${name} draws from the seed: same seed same value, another seed another`, async () => {
      const first = await inSeed(draw, 21);
      expect(await inSeed(draw, 21)).toEqual(first);
      expect(await inSeed(draw, 22)).not.toEqual(first);
    });
  }
});
