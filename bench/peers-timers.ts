/**
 * Timer workloads of the peer benchmarks: TASKS tasks each sleeping SLEEPS random times (1-100
 * ms), alone or passing a message to the next task of a ring after each sleep, in a Moonpool seed
 * and under `@sinonjs/fake-timers` (a clock of its own, driven by `tickAsync` or `runAllAsync`).
 * Each returns the CPU milliseconds of the whole run.
 */
import FakeTimers from "@sinonjs/fake-timers";
import { SimulationBuilder, type SimContext } from "../packages/sim/src/index.ts";
import { cpuMs, prng } from "./peers-measure.ts";

export const TASKS = 1_000;
export const SLEEPS = 200;
const MAX_SLEEP_MS = 100;

async function runSeed(body: (ctx: SimContext) => Promise<void>): Promise<void> {
  const report = await new SimulationBuilder()
    .workloadFactory(() => ({ name: "timers", run: body }))
    .networkFaults("none")
    .setDebugSeeds([1])
    .setIterations(1)
    .run();
  if (report.failedRuns !== 0) throw new Error(`peers timer seed failed:\n${report.toString()}`);
}

/** Ours: TASKS spawned tasks, each SLEEPS random sleeps; with `ring`, a message to the next task after each. */
export function moonpoolTimers(ring: boolean): Promise<number> {
  return cpuMs(() =>
    runSeed(async (ctx) => {
      const handles = [];
      for (let i = 0; i < TASKS; i++) {
        handles.push(
          ctx.task.spawn(`t${i}`, async (scope) => {
            const inbox = ring ? scope.task.channel<number>(`ring-${i}`) : null;
            const next = ring ? scope.task.channel<number>(`ring-${(i + 1) % TASKS}`) : null;
            for (let j = 0; j < SLEEPS; j++) {
              await scope.time.sleep(scope.random.randomRange(1, MAX_SLEEP_MS + 1));
              if (ring) {
                next!.send(j);
                await inbox!.recv();
              }
            }
          }),
        );
      }
      for (const h of handles) await h;
    }),
  );
}

/** A one-slot-per-message mailbox for the fake-timers ring: the peer has no channel of its own. */
class Mailbox {
  private readonly values: number[] = [];
  private waiter: ((v: number) => void) | null = null;
  send(v: number): void {
    const w = this.waiter;
    if (w !== null) {
      this.waiter = null;
      w(v);
    } else this.values.push(v);
  }
  recv(): Promise<number> {
    if (this.values.length > 0) return Promise.resolve(this.values.shift()!);
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

/** fake-timers: the same tasks on a clock of its own, driven by `tickAsync` (in one call) or `runAllAsync`. */
export function fakeTimers(ring: boolean, drive: "tickAsync" | "runAllAsync"): Promise<number> {
  return cpuMs(async () => {
    const clock = FakeTimers.createClock(0, TASKS * SLEEPS * 10);
    const random = prng(1);
    const boxes = ring ? Array.from({ length: TASKS }, () => new Mailbox()) : [];
    const tasks: Promise<void>[] = [];
    for (let i = 0; i < TASKS; i++) {
      tasks.push(
        (async () => {
          for (let j = 0; j < SLEEPS; j++) {
            const delayMs = 1 + Math.floor(random() * MAX_SLEEP_MS);
            await new Promise<void>((resolve) => clock.setTimeout(() => resolve(), delayMs));
            if (ring) {
              boxes[(i + 1) % TASKS]!.send(j);
              await boxes[i]!.recv();
            }
          }
        })(),
      );
    }
    if (drive === "tickAsync") await clock.tickAsync(SLEEPS * MAX_SLEEP_MS * 2);
    else await clock.runAllAsync();
    await Promise.all(tasks);
  });
}
