/** A spawned task that fails fails its seed, unless the simulation allows task failures. *
 * These simulations run exact clocks (`.clockFaults("none")`): they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../src/index.ts";
import { workload } from "./fixtures/in-sim.ts";

function spawning(body: (ctx: SimContext) => Promise<void>): SimulationBuilder {
  return new SimulationBuilder()
    .clockFaults("none")
    .workloadFactory(() => workload(body))
    .setDebugSeeds([5])
    .setIterations(1);
}

const throwingTask = async (ctx: SimContext) => {
  ctx.task.spawn("poller", async (s) => {
    await s.time.sleep(3);
    throw new RangeError("poll index out of range");
  });
  await ctx.time.sleep(10);
};

describe("spawned task failures", () => {
  it("fail the seed by default, naming the task, with the user's stack", async () => {
    const report = await spawning(throwingTask).run();
    expect(report.failedRuns).toBe(1);
    const [failure] = report.seeds[0]!.failures;
    expect(failure).toMatchObject({ kind: "task", actor: "w@10.0.0.1", timeMs: 3 });
    expect(failure!.message).toMatch(/^task 'poller' of w@10\.0\.0\.1 failed: RangeError: poll index out of range/);
    expect(failure!.stack).toContain("task-failures.test.ts");
    expect(report.toString()).toMatch(/at .*task-failures\.test\.ts:\d+:\d+/);
  });

  it("stay a trace warning with allowTaskFailures()", async () => {
    let warned = false;
    const report = await spawning(throwingTask)
      .allowTaskFailures()
      .invariant({ name: "sees task_failed", observe: (trace) => void (warned ||= trace.count("task_failed") > 0) })
      .run();
    expect(report.failedRuns).toBe(0);
    expect(warned).toBe(true);
  });

  it("do not include cancelled tasks, nor a task whose body catches its own errors", async () => {
    const report = await spawning(async (ctx) => {
      const long = ctx.task.spawn("long", async (s) => {
        await s.time.sleep(100);
      });
      ctx.task.spawn("careful", async (s) => {
        await s.time.sleep(1);
        try {
          throw new Error("handled");
        } catch {
          s.trace.info("recovered");
        }
      });
      await ctx.time.sleep(5);
      long.abort();
      await ctx.time.sleep(5);
    }).run();
    expect(report.seeds[0]!.failures).toEqual([]);
  });
});
