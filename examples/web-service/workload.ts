/**
 * The client workload: health checks, creates, reads of created ids and of unknown ids, in a
 * seeded random mix, from two concurrent loops. Every answer that arrives is checked.
 */
import { assertAlways, assertSometimes } from "@moonpool/core";
import type { SimContext, Workload } from "@moonpool/sim";
import { call } from "./client.ts";

export const SERVICE_PORT = 8080;
export const OPERATIONS_PER_LOOP = 40;

export class WebClient implements Workload {
  readonly name = "client";
  /** Values of the creates that answered 201, by id. */
  private readonly created = new Map<string, string>();

  async run(ctx: SimContext): Promise<void> {
    const host = ctx.topology.ipsInGroup("web")[0]!;
    // Give the server its bind latency before the first request.
    await ctx.time.sleep(50);
    await Promise.all([this.loop(ctx, host, "a"), this.loop(ctx, host, "b")]);
  }

  private async loop(ctx: SimContext, host: string, name: string): Promise<void> {
    for (let i = 0; i < OPERATIONS_PER_LOOP; i++) {
      const roll = ctx.random.randomRange(0, 10);
      if (roll < 2) await this.health(host);
      else if (roll < 6) await this.create(host, `${name}-${i}`);
      else if (roll < 9) await this.readCreated(ctx, host);
      else await this.readUnknown(host, `${name}-${i}`);
      await ctx.time.sleep(ctx.random.randomRange(1, 40));
    }
  }

  private async health(host: string): Promise<void> {
    const reply = await call(host, SERVICE_PORT, "GET", "/health");
    if (reply.status === null) return;
    assertAlways(reply.status === 200, "health answers 200", { status: reply.status });
    assertSometimes(reply.status === 200, "health answered 200");
  }

  private async create(host: string, value: string): Promise<void> {
    const reply = await call(host, SERVICE_PORT, "POST", "/items", { value });
    if (reply.status === null) return;
    assertAlways(reply.status === 201 || reply.status === 500, "a create answers 201 or 500", { status: reply.status });
    assertSometimes(reply.status === 201, "a create answered 201");
    assertSometimes(reply.status === 500, "a create answered 500");
    if (reply.status === 201) this.created.set((reply.body as { id: string }).id, value);
  }

  private async readCreated(ctx: SimContext, host: string): Promise<void> {
    if (this.created.size === 0) return;
    const ids = [...this.created.keys()];
    const id = ids[ctx.random.randomRange(0, ids.length)]!;
    const reply = await call(host, SERVICE_PORT, "GET", `/items/${id}`);
    if (reply.status === null) return;
    const value = (reply.body as { value?: string } | undefined)?.value;
    const ok = (reply.status === 200 && value === this.created.get(id)) || reply.status === 500;
    assertAlways(ok, "a read returns what was created or 500", { id, status: reply.status, value: String(value) });
    assertSometimes(reply.status === 200, "a read answered 200 with the created value");
    assertSometimes(reply.status === 500, "a read answered 500");
  }

  private async readUnknown(host: string, suffix: string): Promise<void> {
    const reply = await call(host, SERVICE_PORT, "GET", `/items/unknown-${suffix}`);
    if (reply.status === null) return;
    assertAlways(reply.status === 404 || reply.status === 500, "an unknown id answers 404 or 500", {
      status: reply.status,
    });
    assertSometimes(reply.status === 404, "an unknown id answered 404");
    assertSometimes(reply.status === 500, "an unknown id answered 500");
  }
}
