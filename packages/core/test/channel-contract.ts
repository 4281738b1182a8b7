/**
 * The channel contract (`Channel` in providers.ts), as one suite run against both providers: the
 * production task provider (production-channel.test.ts here) and the simulated one
 * (packages/sim/test/channel-contract.test.ts). A harness runs a body with a `TaskProvider` and a
 * `TimeProvider` of one process; `time.sleep(1)` is how a body lets spawned tasks start and wait.
 * Expectations inside a body throw, which rejects the run and fails the test.
 */
import { describe, expect, it } from "vitest";
import { ChannelClosed, TimeoutError, type TaskProvider, type TimeProvider } from "@moonpool/core";

/** How a promise settled: its value, or the name of its error. */
async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: string }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error: error instanceof Error || error instanceof DOMException ? error.name : String(error) };
  }
}

export interface ChannelHarness {
  run<T>(body: (task: TaskProvider, time: TimeProvider) => Promise<T>): Promise<T>;
}

export function channelContractSuite(name: string, harness: ChannelHarness): void {
  describe(`channel contract: ${name}`, () => {
    it("keeps values in send order and serves waiting receivers in the order they began waiting", async () => {
      const out = await harness.run(async (task, time) => {
        const waitOrder: string[] = [];
        const got = new Map<string, string | undefined>();
        const receivers = ["r0", "r1", "r2"].map((r) =>
          task.spawn(r, async (scope) => {
            const ch = scope.task.channel<string>("jobs");
            waitOrder.push(r);
            got.set(r, await ch.recv());
          }),
        );
        await time.sleep(1);
        const ch = task.channel<string>("jobs");
        for (const v of ["a", "b", "c", "d"]) ch.send(v);
        for (const r of receivers) await r;
        return { served: waitOrder.map((r) => got.get(r)), left: await ch.recv(), size: ch.size };
      });
      expect(out).toEqual({ served: ["a", "b", "c"], left: "d", size: 0 });
    });

    it("close: queued values first, then undefined for everyone; send after close throws ChannelClosed", async () => {
      const out = await harness.run(async (task, time) => {
        const idle = task.spawn("idle", (scope) => scope.task.channel<number>("idle").recv());
        await time.sleep(1);
        task.channel<number>("idle").close();
        const ch = task.channel<number>("c");
        ch.send(1);
        ch.send(2);
        ch.close();
        ch.close();
        const drained = [await ch.recv(), await ch.recv(), await ch.recv()];
        let error: unknown;
        try {
          ch.send(3);
        } catch (e) {
          error = e;
        }
        return {
          drained,
          idle: await idle.join(),
          closed: ch.closed,
          isChannelClosed: error instanceof ChannelClosed,
          message: (error as Error).message,
        };
      });
      expect(out).toMatchObject({ drained: [1, 2, undefined], idle: undefined, closed: true, isChannelClosed: true });
      expect(out.message).toMatch(/send on channel 'c' after close\(\)/);
    });

    it("refuses undefined values and empty names with TypeErrors", async () => {
      const out = await harness.run(async (task) => {
        const errors: string[] = [];
        for (const attempt of [() => task.channel<unknown>("x").send(undefined), () => task.channel<unknown>("")]) {
          try {
            attempt();
          } catch (e) {
            errors.push(`${(e as Error).name}: ${(e as Error).message}`);
          }
        }
        return { errors, size: task.channel<unknown>("x").size };
      });
      expect(out.size).toBe(0);
      expect(out.errors).toHaveLength(2);
      expect(out.errors[0]).toMatch(/^TypeError: send\(undefined\) on channel 'x'.*send null or a wrapper object/);
      expect(out.errors[1]).toMatch(/^TypeError: a channel needs a non-empty string name/);
    });

    it("recv({ timeoutMs }) gives up with TimeoutError and leaves the line: the value goes to the next receiver", async () => {
      const out = await harness.run(async (task, time) => {
        const ch = task.channel<string>("replies");
        const impatient = settle(ch.recv({ timeoutMs: 5 }));
        const patient = task.spawn("patient", async (scope) => {
          await scope.time.sleep(1); // queue up behind the impatient receiver
          return scope.task.channel<string>("replies").recv();
        });
        await time.sleep(20);
        const timedOut = await impatient;
        ch.send("late reply");
        const patientGot = await patient.join();
        const served = settle(ch.recv({ timeoutMs: 1_000 })); // nothing queued: the patient one took it
        ch.send("for the last");
        return { timedOut, patient: patientGot, served: (await served).value, size: ch.size };
      });
      expect(out).toEqual({
        timedOut: { error: "TimeoutError" },
        patient: "late reply",
        served: "for the last",
        size: 0,
      });
      expect(new TimeoutError(5).message).toMatch(/timed out after 5 ms/);
    });

    it("recv({ timeoutMs }) served in time resolves, and its deadline later does nothing", async () => {
      const out = await harness.run(async (task, time) => {
        const ch = task.channel<number>("quick");
        const pending = settle(ch.recv({ timeoutMs: 10 }));
        ch.send(7);
        const first = await pending;
        await time.sleep(30); // past the deadline
        ch.send(8);
        return { first, second: await ch.recv() };
      });
      expect(out).toEqual({ first: { value: 7 }, second: 8 });
    });

    it("recv({ signal }) rejects with the signal's reason when it aborts, and an aborted signal takes nothing", async () => {
      const out = await harness.run(async (task, time) => {
        const ch = task.channel<string>("work");
        const controller = new AbortController();
        const waiting = settle(ch.recv({ signal: controller.signal }));
        await time.sleep(1);
        controller.abort(new DOMException("stop waiting", "AbortError"));
        const aborted = await waiting;
        ch.send("kept");
        const refused = await settle(ch.recv({ signal: controller.signal }));
        return { aborted, refused, size: ch.size, next: await ch.recv() };
      });
      expect(out).toEqual({
        aborted: { error: "AbortError" },
        refused: { error: "AbortError" },
        size: 1,
        next: "kept",
      });
    });

    it("refuses a timeoutMs that is not a finite duration with a RangeError", async () => {
      const out = await harness.run(async (task) => {
        const names: string[] = [];
        for (const timeoutMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
          try {
            await task.channel<number>("t").recv({ timeoutMs });
          } catch (error) {
            names.push(
              `${(error as Error).name}: ${(error as Error).message.includes("timeoutMs must be a finite number")}`,
            );
          }
        }
        return names;
      });
      expect(out).toEqual(["RangeError: true", "RangeError: true", "RangeError: true"]);
    });

    it("an aborted receiver stops where it waits and loses no value", async () => {
      const out = await harness.run(async (task, time) => {
        const log: string[] = [];
        const first = task.spawn("first", async (scope) => {
          try {
            log.push(`first got ${await scope.task.channel<string>("c").recv()}`);
          } finally {
            log.push("first finally");
          }
        });
        await time.sleep(1);
        first.abort();
        const ch = task.channel<string>("c");
        ch.send("v");
        await time.sleep(1);
        const second = await task.spawn("second", (scope) => scope.task.channel<string>("c").recv()).join();
        return { log, second, outcome: (await first.outcome).status };
      });
      expect(out).toEqual({ log: [], second: "v", outcome: "cancelled" });
    });
  });
}
