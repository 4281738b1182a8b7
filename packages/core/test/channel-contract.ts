/**
 * The channel contract (`Channel` in providers.ts), as one suite run against both providers: the
 * production task provider (production-channel.test.ts here) and the simulated one
 * (packages/sim/test/channel-contract.test.ts). A harness runs a body with a `TaskProvider` and a
 * `TimeProvider` of one process; `time.sleep(1)` is how a body lets spawned tasks start and wait.
 * Expectations inside a body throw, which rejects the run and fails the test.
 */
import { describe, expect, it } from "vitest";
import { ChannelClosed, type TaskProvider, type TimeProvider } from "@moonpool/core";

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
        return { drained, idle: await idle.join(), closed: ch.closed, isChannelClosed: error instanceof ChannelClosed };
      });
      expect(out).toEqual({ drained: [1, 2, undefined], idle: undefined, closed: true, isChannelClosed: true });
    });

    it("refuses undefined values and empty names with TypeErrors", async () => {
      const out = await harness.run(async (task) => {
        const errors: string[] = [];
        for (const attempt of [() => task.channel<unknown>("x").send(undefined), () => task.channel<unknown>("")]) {
          try {
            attempt();
          } catch (e) {
            errors.push((e as Error).name);
          }
        }
        return { errors, size: task.channel<unknown>("x").size };
      });
      expect(out).toEqual({ errors: ["TypeError", "TypeError"], size: 0 });
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
