/**
 * A client of the append log: a swarmed alphabet of operations, each made with an explicit
 * delivery mode, a reference model that checks every reply, and facts for the invariant.
 *
 * Operation alphabet (stable ids, swarmed per seed with `swarmOperations()`; weights in brackets):
 *   0 normal append, at least once (getReply) [70]    1 empty block [8]      2 max-size block [7]
 *   3 append at most once (tryGetReply) [6]            4 append with a short timeout [5]
 *   5 request to a wrong endpoint [2]                  6 small delay [2]      7 fire-and-forget append [3]
 */
import {
  ApplicationError,
  assertAlways,
  assertSometimes,
  BrokenPromise,
  ConnectionFailed,
  EndpointNotFound,
  isAbortError,
  MaybeDelivered,
  RequestTimeout,
  swarmOpEnabled,
  Transport,
  type ServiceStub,
} from "@moonpool/sim";
import type { SimContext, Workload } from "@moonpool/sim";
import {
  AppendLogService,
  blockDigest,
  chainHash,
  LOG_PORT,
  MAX_BLOCK_BYTES,
  type AppendLog,
  type AppendReply,
  type AppendRequest,
  type DeliveryMode,
} from "./append-log.ts";

const OPS = [
  { id: 0, weight: 70 },
  { id: 1, weight: 8 },
  { id: 2, weight: 7 },
  { id: 3, weight: 6 },
  { id: 4, weight: 5 },
  { id: 5, weight: 2 },
  { id: 6, weight: 2 },
  { id: 7, weight: 3 },
] as const;

export interface ClientOptions {
  /** Simulated time the client issues operations. */
  readonly activeMs: number;
  /** End of the chaos window: after it (plus `healMs`), at-least-once requests must be answered. */
  readonly chaosMs: number;
}

/** Longest pause between two operations of a client. */
const THINK_MS = 30;
/** Time after the chaos window for connections to come back (backoff is capped at 1 s). */
const HEAL_MS = 2_000;

export class AppendLogClient implements Workload {
  readonly name = "client";
  private lastSeq = 0;

  constructor(private readonly options: ClientOptions) {}

  async run(ctx: SimContext): Promise<void> {
    const transport = new Transport(ctx);
    const server = `${ctx.topology.ipsInGroup("server")[0]!}:${LOG_PORT}`;
    const log = transport.stub(AppendLogService, server);
    const enabled = OPS.filter((op) => swarmOpEnabled(op.id));
    const ops = enabled.length > 0 ? enabled : [OPS[0]];
    const totalWeight = ops.reduce((sum, op) => sum + op.weight, 0);
    const end = ctx.time.now() + this.options.activeMs;
    for (let n = 1; ctx.time.now() < end; n++) {
      let pick = ctx.random.randomRange(0, totalWeight);
      const op = ops.find((o) => (pick -= o.weight) < 0)!;
      await this.perform(ctx, transport, log, server, op.id, n);
      await ctx.time.sleep(ctx.random.randomRange(1, THINK_MS));
    }
    // Liveness: once the network healed, an at-least-once request must be answered.
    const healedAt = this.options.chaosMs + HEAL_MS;
    if (ctx.time.now() < healedAt) await ctx.time.sleep(healedAt - ctx.time.now());
    const last: AppendRequest = { client: ctx.clientId, op: 0, mode: "at-least-once", data: "final" };
    const final = await this.append(ctx, last, (request) => log.append.getReply(request, { timeoutMs: 20_000 }));
    // A client still working when the first one finishes is shut down with the rest.
    const answered = final === "reply" || ctx.shutdown.aborted;
    assertAlways(answered, "an at-least-once append is answered after the network heals", { outcome: final });
    await transport.close();
  }

  private async perform(
    ctx: SimContext,
    transport: Transport,
    log: ServiceStub<AppendLog>,
    server: string,
    opId: number,
    n: number,
  ): Promise<void> {
    const request = (mode: DeliveryMode, data: string): AppendRequest => ({ client: ctx.clientId, op: n, mode, data });
    const text = (bytes: number) => String.fromCharCode(97 + (n % 26)).repeat(bytes);
    const atLeastOnce = (r: AppendRequest) => log.append.getReply(r, { timeoutMs: 5_000 });
    switch (opId) {
      case 0:
        await this.append(ctx, request("at-least-once", text(ctx.random.randomRange(1, 65))), atLeastOnce);
        return;
      case 1:
        await this.append(ctx, request("at-least-once", ""), atLeastOnce);
        return;
      case 2:
        await this.append(ctx, request("at-least-once", text(MAX_BLOCK_BYTES)), atLeastOnce);
        return;
      case 3: {
        const atMostOnce = (r: AppendRequest) =>
          log.append.tryGetReply(r, { timeoutMs: ctx.random.randomRange(2, 200) });
        await this.append(ctx, request("at-most-once", text(16)), atMostOnce);
        return;
      }
      case 4: {
        const shortTimeout = (r: AppendRequest) => log.append.getReply(r, { timeoutMs: ctx.random.randomRange(5, 60) });
        await this.append(ctx, request("at-least-once", text(8)), shortTimeout);
        return;
      }
      case 5: {
        const wrong = transport.stub(AppendLogService, { address: server, token: transport.newToken() });
        const outcome = await wrong.head.tryGetReply(null, { timeoutMs: 1_000 }).then(
          () => "reply",
          (error: unknown) => error,
        );
        assertAlways(outcome !== "reply", "a wrong endpoint never answers");
        assertSometimes(outcome instanceof EndpointNotFound, "a wrong endpoint returns EndpointNotFound");
        const expected = [EndpointNotFound, MaybeDelivered, ConnectionFailed].some((type) => outcome instanceof type);
        if (!expected) throw outcome;
        return;
      }
      case 6:
        await ctx.time.sleep(ctx.random.randomRange(1, 20));
        return;
      case 7: {
        const r = request("fire-and-forget", text(4));
        ctx.trace.info("op_sent", { client: r.client, op: r.op, mode: r.mode });
        log.append.send(r);
        assertSometimes(true, "a fire-and-forget append was sent");
        return;
      }
    }
  }

  /** Makes one append, checks a reply against the model, and records the outcome. */
  private async append(
    ctx: SimContext,
    request: AppendRequest,
    send: (request: AppendRequest) => Promise<AppendReply>,
  ): Promise<string> {
    ctx.trace.info("op_sent", { client: request.client, op: request.op, mode: request.mode });
    try {
      const reply = await send(request);
      const modelHash = chainHash(reply.prevHash, reply.seq, blockDigest(request.data));
      assertAlways(reply.hash === modelHash, "the reply's hash matches the reference model", { seq: reply.seq });
      assertAlways(reply.seq > this.lastSeq, "reply sequence numbers grow", { seq: reply.seq, last: this.lastSeq });
      this.lastSeq = Math.max(this.lastSeq, reply.seq);
      ctx.trace.info("reply_received", { client: request.client, op: request.op, seq: reply.seq, hash: reply.hash });
      assertSometimes(true, "a reply was received");
      return "reply";
    } catch (error) {
      if (error instanceof MaybeDelivered) {
        assertSometimes(true, "a maybe-delivered outcome was observed");
        return "maybe-delivered";
      }
      if (error instanceof ConnectionFailed) {
        // Known not to have run: the invariant holds the server to it.
        ctx.trace.info("op_not_sent", { client: request.client, op: request.op });
        assertSometimes(true, "a terminal error was observed");
        return "connection-failed";
      }
      if (error instanceof RequestTimeout) {
        assertSometimes(true, "a terminal error was observed");
        return "timeout";
      }
      if (error instanceof BrokenPromise) {
        // The server answers every append; only its own shutdown at the end may break promises.
        const details = { op: request.op, bytes: request.data.length };
        assertAlways(ctx.shutdown.aborted, "the server never drops an append's promise", details);
        return "broken-promise";
      }
      if (isAbortError(error)) return "aborted";
      if (error instanceof EndpointNotFound || error instanceof ApplicationError) {
        assertAlways(false, "the append service is found and accepts every block", { error: error.message });
        return "error";
      }
      throw error;
    }
  }
}
