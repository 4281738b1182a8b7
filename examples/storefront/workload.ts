/**
 * The shop workload: two concurrent clients place orders and read placed ones back over `fetch`
 * by host name (`http://orders:8080`) during the chaos window, then, once the window has closed
 * and the service has had time to come back, read every acknowledged order one last time.
 *
 * Its reference model is the catalogue and the orders acknowledged so far: every 201 must carry
 * the catalogue price times the quantity, and an acknowledged order must read back unchanged
 * (a 404, or another order under its id, means an acknowledged order was lost).
 */
import { assertAlways, assertSometimes } from "@moonpool/core";
import type { SimContext, Workload } from "@moonpool/sim";
import { CATALOGUE, SKUS } from "./catalogue.ts";
import type { Order } from "./order-log.ts";
import { ORDERS_PORT } from "./orders.ts";

export const ORDERS_URL = `http://orders:${ORDERS_PORT}`;
export const REQUEST_TIMEOUT_MS = 1_000;
/** The final read-back waits this long after the chaos window, then retries an order this often. */
export const SETTLE_MS = 1_500;
export const FINAL_READ_ATTEMPTS = 10;

interface Reply {
  readonly status: number;
  readonly body: unknown;
}

/** One request; null when no answer arrived (refused, reset, unknown name, timed out). */
async function call(method: string, path: string, body?: unknown): Promise<Reply | null> {
  try {
    const res = await fetch(`${ORDERS_URL}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return { status: res.status, body: await res.json() };
  } catch {
    return null;
  }
}

export class ShopWorkload implements Workload {
  readonly name = "shop";
  /** The reference model: every order the service acknowledged, by id. */
  private readonly acked = new Map<number, Order>();

  constructor(private readonly chaosMs: number) {}

  async run(ctx: SimContext): Promise<void> {
    await ctx.time.sleep(50); // the services' bind latency
    await Promise.all([this.client(ctx), this.client(ctx)]);
    await ctx.time.sleep(SETTLE_MS);
    for (const order of this.acked.values()) await this.finalRead(ctx, order);
    assertSometimes(this.acked.size > 0, "orders were acknowledged");
  }

  private async client(ctx: SimContext): Promise<void> {
    while (ctx.time.now() < this.chaosMs) {
      if (this.acked.size === 0 || ctx.random.randomRange(0, 10) < 6) await this.place(ctx);
      else await this.readBack(ctx);
      await ctx.time.sleep(ctx.random.randomRange(5, 60));
    }
  }

  private async place(ctx: SimContext): Promise<void> {
    const sku = SKUS[ctx.random.randomRange(0, SKUS.length)]!;
    const qty = ctx.random.randomRange(1, 6);
    const reply = await call("POST", "/orders", { sku, qty });
    if (reply === null) return;
    assertAlways(reply.status === 201 || reply.status === 502, "a placed order answers 201 or 502", {
      status: reply.status,
    });
    assertSometimes(reply.status === 502, "pricing was unavailable for an order");
    if (reply.status !== 201) return;
    const order = reply.body as Order;
    assertAlways(
      order.sku === sku && order.qty === qty && order.totalCents === CATALOGUE[sku]! * qty,
      "an order's total is the catalogue price times its quantity",
      { sku, qty, totalCents: order.totalCents },
    );
    assertAlways(!this.acked.has(order.id), "an acknowledged order's id is never given again", { id: order.id });
    this.acked.set(order.id, order);
  }

  private async readBack(ctx: SimContext): Promise<void> {
    const ids = [...this.acked.keys()];
    const order = this.acked.get(ids[ctx.random.randomRange(0, ids.length)]!)!;
    const reply = await call("GET", `/orders/${order.id}`);
    if (reply !== null) this.compare(order, reply);
  }

  private async finalRead(ctx: SimContext, order: Order): Promise<void> {
    for (let attempt = 0; attempt < FINAL_READ_ATTEMPTS; attempt++) {
      const reply = await call("GET", `/orders/${order.id}`);
      if (reply !== null) return this.compare(order, reply);
      await ctx.time.sleep(200);
    }
    assertAlways(false, "the service answers after the chaos window", { id: order.id });
  }

  private compare(order: Order, reply: Reply): void {
    const got = reply.body as Partial<Order>;
    const same = got.sku === order.sku && got.qty === order.qty && got.totalCents === order.totalCents;
    assertAlways(reply.status === 200 && same, "an acknowledged order reads back unchanged", {
      id: order.id,
      status: reply.status,
      sku: String(got.sku),
      totalCents: String(got.totalCents),
    });
    assertSometimes(reply.status === 200, "an acknowledged order was read back");
  }
}
