/**
 * The driver: several clients issue gets and puts on a few keys at once, each recording what it
 * asked and what it got in one shared history. After the run, `check()` asks the linearizability
 * checker whether some single-copy order of the operations explains every result.
 */
import {
  assertAlways,
  assertSometimes,
  checkLinearizability,
  explainCheck,
  HistoryRecorder,
  kvModel,
  Transport,
  type SimContext,
  type TaskScope,
  type Workload,
} from "@moonpool/sim";
import { KvClient, QuorumUnavailable, type KvClientOptions } from "./client.ts";

export const KEYS = ["x", "y"] as const;
export const CLIENT_COUNT = 3;
/** How long the clients keep issuing operations, in simulated ms (the chaos window and a tail). */
export const RUN_MS = 6_000;
/**
 * The checker's budget inside a seed, in search steps (deterministic, unlike a wall-clock limit).
 * These histories need a few thousand; a seed whose history exceeds it reports "unknown".
 */
export const CHECK_MAX_STEPS = 5_000_000;

export class KvWorkload implements Workload {
  readonly name = "kv-clients";
  private history!: HistoryRecorder;

  constructor(private readonly options: KvClientOptions = {}) {}

  async run(ctx: SimContext): Promise<void> {
    this.history = new HistoryRecorder({ time: ctx.time, trace: ctx.trace });
    const replicas = ctx.topology.ipsInGroup("replica");
    const end = ctx.time.now() + RUN_MS;
    const transport = new Transport(ctx);
    const clients = Array.from({ length: CLIENT_COUNT }, (_, c) =>
      ctx.task.spawn(`client-${c}`, (scope) =>
        this.client(scope, new KvClient(`c${c}`, transport, replicas, this.options), `c${c}`, end),
      ),
    );
    // Every client must finish: the first workload to return would shut the others down.
    for (const handle of clients) await handle.join();
    await transport.close();
  }

  private async client(io: TaskScope, client: KvClient, name: string, endMs: number): Promise<void> {
    let written = 0;
    while (io.time.now() < endMs) {
      await io.time.sleep(io.random.randomRange(1, 30));
      const key = KEYS[io.random.randomRange(0, KEYS.length)]!;
      if (io.random.randomBool(0.5)) {
        const value = `${name}-${++written}`;
        const op = this.history.invoke(name, { f: "put", key, value });
        try {
          await client.put(key, value);
          op.ok();
        } catch (error) {
          if (!(error instanceof QuorumUnavailable)) throw error;
          // Nothing was sent for writing if the read phase failed; after that, the value may be stored.
          if (error.phase === "read") op.fail();
          else op.info();
          assertSometimes(error.phase === "write", "a put ended with an unknown outcome");
        }
      } else {
        const op = this.history.invoke(name, { f: "get", key });
        try {
          const value = await client.get(io, key);
          op.ok(value);
          assertSometimes(value !== null && !value.startsWith(`${name}-`), "a get returned another client's write");
        } catch (error) {
          if (!(error instanceof QuorumUnavailable)) throw error;
          op.fail(); // a read that did not complete changed nothing anyone can observe
          assertSometimes(true, "an operation failed for lack of a quorum");
        }
      }
    }
  }

  async check(ctx: SimContext): Promise<void> {
    const ops = this.history.history();
    const result = checkLinearizability(kvModel(), ops, { maxSteps: CHECK_MAX_STEPS });
    ctx.trace.info("linearizability_checked", { verdict: result.verdict, operations: ops.length, steps: result.steps });
    if (result.verdict === "illegal") {
      // One event per line, so a replay prints the explanation readably.
      const lines = explainCheck(kvModel(), result).split("\n");
      for (const [line, text] of lines.entries()) ctx.trace.error("linearizability_violation", { line, text });
    }
    assertSometimes(ops.length >= 20, "a seed checked at least 20 operations");
    const part = result.illegalPart === undefined ? undefined : result.parts[result.illegalPart];
    const stuck = part?.longest === undefined ? undefined : part.operations[part.longest.stuckOp];
    assertAlways(result.verdict !== "illegal", "client history is linearizable", {
      operations: ops.length,
      key: stuck?.input.key ?? null,
      cannotPlace:
        stuck === undefined ? null : `${stuck.client}: ${stuck.input.f} → ${JSON.stringify(stuck.output ?? null)}`,
      linearized: part?.longest?.order.length ?? null,
    });
  }
}
