/**
 * The clients: each writes and reads its own keys through a `@grpc/grpc-js` client with a deadline
 * on every call (virtual time: `Date.now()` is the process's clock). A call that fails
 * (UNAVAILABLE while the server is down or partitioned, DEADLINE_EXCEEDED; a bit the network flipped
 * in a header can give any status) is followed by more calls on the same channel, which grpc-js
 * reconnects on its own (its backoff timers are virtual).
 */
import { assertAlways, assertSometimes } from "@moonpool/core";
import type { SimContext, Workload } from "@moonpool/sim";
import * as grpc from "@grpc/grpc-js";
import { KvService, type Reply } from "./service.ts";

export const SERVICE_PORT = 50051;
export const DEADLINE_MS = 400;
/** Clients keep calling this long after the chaos window, so a restarted server is seen again. */
export const RUN_MS = 6_000;

const KvClient = grpc.makeGenericClientConstructor(KvService, "Kv");
type Call = (
  request: object,
  options: grpc.CallOptions,
  callback: (e: grpc.ServiceError | null, r?: Reply) => void,
) => void;

export class KvClientWorkload implements Workload {
  readonly name = "client";

  async run(ctx: SimContext): Promise<void> {
    const host = ctx.topology.ipsInGroup("kv")[0]!;
    await ctx.time.sleep(50);
    // A channel of its own: the global subchannel pool would carry connections from one seed to the next.
    const client = new KvClient(`${host}:${SERVICE_PORT}`, grpc.credentials.createInsecure(), {
      "grpc.use_local_subchannel_pool": 1,
    });
    try {
      await Promise.all([this.loop(ctx, client, "a"), this.loop(ctx, client, "b")]);
    } finally {
      client.close();
    }
  }

  private async loop(ctx: SimContext, client: grpc.Client, name: string): Promise<void> {
    /** The last acknowledged write of this loop's key, with the boot id of the server that took it. */
    let acked: Reply | null = null;
    /** Writes after `acked` whose call failed: the server may have applied them (a lost answer, a deadline). */
    const uncertain = new Set<string>();
    /** The boot id of the last server that answered, and whether a call failed since. */
    let lastBoot: string | null = null;
    let failedSince: string | null = null;
    const key = `${ctx.myIp}/${name}`;
    for (let i = 0; ctx.time.now() < RUN_MS; i++) {
      const write = ctx.random.randomRange(0, 2) === 0;
      const method = (write ? (client as any).put : (client as any).get).bind(client) as Call;
      const request = write ? { key, value: `${name}-${i}` } : { key };
      const startedMs = ctx.time.now();
      const result = await new Promise<{ error: grpc.ServiceError | null; reply?: Reply }>((resolve) =>
        method(request, { deadline: Date.now() + DEADLINE_MS }, (error, reply) => resolve({ error, reply })),
      );
      const elapsedMs = ctx.time.now() - startedMs;
      if (result.error !== null) {
        const code = result.error.code;
        // The client's own deadline timer (its message, not a status the network could have corrupted).
        if (code === grpc.status.DEADLINE_EXCEEDED && result.error.details.startsWith("Deadline exceeded after")) {
          assertAlways(elapsedMs >= DEADLINE_MS - 1, "a call fails on its deadline no earlier than the deadline", {
            elapsedMs,
          });
        }
        assertSometimes(code === grpc.status.DEADLINE_EXCEEDED, "a call hit its deadline");
        assertSometimes(code === grpc.status.UNAVAILABLE, "a call found the server unavailable");
        failedSince ??= result.error.details;
        if (write) uncertain.add((request as { value: string }).value);
      } else {
        const reply = result.reply!;
        if (failedSince !== null) {
          assertSometimes(
            lastBoot !== null && reply.boot !== lastBoot,
            "a client recovered after its server came back",
          );
          assertSometimes(true, "a client recovered after a failed call");
          failedSince = null;
        }
        lastBoot = reply.boot;
        if (write) {
          acked = reply;
          uncertain.clear();
        } else if (acked !== null && reply.boot === acked.boot) {
          const ok = reply.value === acked.value || (reply.value !== null && uncertain.has(reply.value));
          assertAlways(ok, "a read from the same server returns the last acknowledged write or a later attempt", {
            key,
            expected: String(acked.value),
            got: String(reply.value),
          });
        }
      }
      await ctx.time.sleep(ctx.random.randomRange(10, 120));
    }
  }
}
