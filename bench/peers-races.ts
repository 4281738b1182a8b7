/**
 * Tiny race runs of the peer benchmarks: four races of 2-4 tasks, each run RUNS times, as
 * Moonpool seeds (one seed per run, the builder's defaults otherwise) and as fast-check
 * `fc.scheduler` runs (one property run per run). Each returns the CPU milliseconds of its RUNS.
 *
 * - lost-update-2 / lost-update-3: tasks read a shared counter, yield, write it back plus one.
 * - yields-4: four tasks each append to a log around two yields (the log's order is the race).
 * - handoff-2: a producer sends two values; a consumer takes one, yields, takes the other.
 */
import fc from "fast-check";
import { SimulationBuilder, type SimContext, type TaskScope } from "../packages/sim/src/index.ts";
import { cpuMs } from "./peers-measure.ts";

export const RUNS = 400;

interface Race {
  readonly name: string;
  /** The race as a simulation: `pause` is a same-instant yield, `spawn` a task. */
  readonly moonpool: (ctx: SimContext) => Promise<unknown>;
  /** The race under fc.scheduler: `pause` is a scheduled resolution. */
  readonly fastCheck: (s: fc.Scheduler) => Promise<unknown>;
}

function lostUpdate(tasks: number): Race {
  return {
    name: `lost-update-${tasks}`,
    async moonpool(ctx) {
      let x = 0;
      const body = async (scope: TaskScope) => {
        const v = x;
        await scope.task.yieldNow();
        x = v + 1;
      };
      const handles = Array.from({ length: tasks }, (_, i) => ctx.task.spawn(`inc${i}`, body));
      for (const h of handles) await h;
      return x;
    },
    async fastCheck(s) {
      let x = 0;
      const body = async () => {
        const v = x;
        await s.schedule(Promise.resolve());
        x = v + 1;
      };
      const runs = Array.from({ length: tasks }, body);
      await s.waitIdle();
      await Promise.all(runs);
      return x;
    },
  };
}

const yields4: Race = {
  name: "yields-4",
  async moonpool(ctx) {
    const log: number[] = [];
    const handles = Array.from({ length: 4 }, (_, i) =>
      ctx.task.spawn(`y${i}`, async (scope) => {
        log.push(i);
        await scope.task.yieldNow();
        log.push(i);
        await scope.task.yieldNow();
        log.push(i);
      }),
    );
    for (const h of handles) await h;
    return log.join("");
  },
  async fastCheck(s) {
    const log: number[] = [];
    const runs = Array.from({ length: 4 }, async (_, i) => {
      log.push(i);
      await s.schedule(Promise.resolve());
      log.push(i);
      await s.schedule(Promise.resolve());
      log.push(i);
    });
    await s.waitIdle();
    await Promise.all(runs);
    return log.join("");
  },
};

const handoff2: Race = {
  name: "handoff-2",
  async moonpool(ctx) {
    const got: number[] = [];
    const producer = ctx.task.spawn("producer", async (scope) => {
      const ch = scope.task.channel<number>("c");
      ch.send(1);
      await scope.task.yieldNow();
      ch.send(2);
    });
    const consumer = ctx.task.spawn("consumer", async (scope) => {
      const ch = scope.task.channel<number>("c");
      got.push((await ch.recv())!);
      await scope.task.yieldNow();
      got.push((await ch.recv())!);
    });
    await producer;
    await consumer;
    return got.join("");
  },
  async fastCheck(s) {
    const got: number[] = [];
    const values: number[] = [];
    let wake: ((v: number) => void) | null = null;
    const send = (v: number) => {
      if (wake !== null) {
        const w = wake;
        wake = null;
        w(v);
      } else values.push(v);
    };
    const recv = (): Promise<number> =>
      values.length > 0 ? Promise.resolve(values.shift()!) : new Promise<number>((r) => (wake = r));
    const producer = (async () => {
      send(1);
      await s.schedule(Promise.resolve());
      send(2);
    })();
    const consumer = (async () => {
      got.push(await recv());
      await s.schedule(Promise.resolve());
      got.push(await recv());
    })();
    await s.waitIdle();
    await Promise.all([producer, consumer]);
    return got.join("");
  },
};

export const RACES: readonly Race[] = [lostUpdate(2), lostUpdate(3), yields4, handoff2];

/** RUNS seeds of the race as one Moonpool campaign in this thread. */
export function moonpoolRace(race: Race): Promise<number> {
  return cpuMs(async () => {
    const report = await new SimulationBuilder()
      .workload({ name: race.name, run: async (ctx) => void (await race.moonpool(ctx)) })
      .setBaseSeed(7)
      .setIterations(RUNS)
      .run();
    if (report.failedRuns !== 0 || report.iterations !== RUNS)
      throw new Error(`race ${race.name}: ${report.toString()}`);
  });
}

/** RUNS fast-check property runs of the race, each with a fresh scheduler. */
export function fastCheckRace(race: Race): Promise<number> {
  return cpuMs(() =>
    fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        await race.fastCheck(s);
      }),
      { numRuns: RUNS, seed: 7 },
    ),
  );
}
