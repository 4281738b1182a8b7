/**
 * The workload: clients place orders over HTTP with an idempotency key each and retry after a
 * timeout or a 500 with the same key (so a retry can overlap its first attempt), and read their
 * placed orders back. The reference model is what each client was told; after the chaos window
 * a checker reads the database and holds it to the model:
 *
 * - the stock left plus every ordered quantity is the initial stock (no lost decrement);
 * - one order per idempotency key;
 * - every order answered 201/200 is there, with its product and quantity, after any crash;
 * - an order never answered may or may not be there (both are seen, over the campaign).
 */
import { assertAlways, assertSometimes, type SimContext, type Workload } from "@moonpool/sim";
import { randomUUID } from "node:crypto";
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { INITIAL_STOCK, PRODUCTS } from "./schema.ts";

export const SERVICE_PORT = 8080;
export const ORDERS_PER_CLIENT = 12;
/** A client gives up on an attempt after this long and retries with the same key. */
export const ATTEMPT_TIMEOUT_MS = 500;
const ATTEMPTS = 5;

type Outcome = { kind: "placed"; id: number } | { kind: "outOfStock" } | { kind: "unanswered" };

interface Placed {
  readonly key: string;
  readonly productId: number;
  readonly qty: number;
  readonly outcome: Outcome;
}

/** What the clients of one seed were told, and the end of the seed (the checker's verdict). */
export class Ledger {
  readonly orders: Placed[] = [];
  clientsDone = 0;
  checked = false;
}

/** One HTTP exchange that settles once: answered, failed, or given up after `ATTEMPT_TIMEOUT_MS`. */
function exchange(options: http.RequestOptions, body: string | null): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error: Error | null, value?: { status: number; text: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error === null) resolve(value!);
      else {
        request.destroy();
        reject(error);
      }
    };
    const request = http.request({ ...options, port: SERVICE_PORT }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () => settle(null, { status: response.statusCode ?? 0, text }));
      response.on("error", (error) => settle(error));
      response.on("close", () => settle(new Error("response cut short")));
    });
    // The whole attempt, connect included, is bounded: the client retries after it.
    const timer = setTimeout(() => settle(new Error("attempt timed out")), ATTEMPT_TIMEOUT_MS);
    request.on("error", (error) => settle(error));
    request.on("close", () => settle(new Error("connection closed")));
    request.end(body ?? undefined);
  });
}

function post(host: string, path: string, body: string): Promise<{ status: number; text: string }> {
  return exchange({ host, path, method: "POST", headers: { "content-type": "application/json" } }, body);
}

function get(host: string, path: string): Promise<{ status: number; text: string }> {
  return exchange({ host, path, method: "GET" }, null);
}

export class OrderClient implements Workload {
  readonly name: string;
  constructor(
    index: number,
    private readonly ledger: Ledger,
  ) {
    this.name = `client-${index}`;
  }

  async run(ctx: SimContext): Promise<void> {
    const host = ctx.topology.ipsInGroup("orders")[0]!;
    await sleep(200); // the service and the database boot
    for (let n = 0; n < ORDERS_PER_CLIENT; n++) {
      const order = {
        key: randomUUID(),
        productId: PRODUCTS[Math.floor(Math.random() * PRODUCTS.length)]!,
        qty: 1 + Math.floor(Math.random() * 3),
      };
      const outcome = await this.place(host, order);
      this.ledger.orders.push({ ...order, outcome });
      if (outcome.kind === "placed") await this.readBack(host, outcome.id, order);
      await sleep(10 + Math.random() * 60);
    }
    this.ledger.clientsDone++;
    // The seed ends when the checker has read the database (the first workload to end stops all).
    while (!this.ledger.checked) await sleep(100);
  }

  private async place(host: string, order: { key: string; productId: number; qty: number }): Promise<Outcome> {
    const body = JSON.stringify(order);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        const { status, text } = await post(host, "/orders", body);
        if (status === 201 || status === 200) return { kind: "placed", id: (JSON.parse(text) as { id: number }).id };
        if (status === 409) return { kind: "outOfStock" };
      } catch {
        // timed out or reset: the order may be placed; retry with the same key
      }
      await sleep(20 + Math.random() * 80);
    }
    return { kind: "unanswered" };
  }

  private async readBack(host: string, id: number, order: { productId: number; qty: number }): Promise<void> {
    try {
      const { status, text } = await get(host, `/orders/${id}`);
      if (status !== 200) return; // a 500 or 404 while the database restarts says nothing
      const found = JSON.parse(text) as { productId: number; qty: number };
      assertAlways(
        found.productId === order.productId && found.qty === order.qty,
        "a placed order reads back as placed",
        { id, ...order, found: text },
      );
    } catch {
      // a timed-out read says nothing about the order
    }
  }
}

/** Reads the database after the chaos window and holds it to what the clients were told. */
export class OrdersChecker implements Workload {
  readonly name = "checker";
  constructor(
    private readonly ledger: Ledger,
    private readonly clients: number,
    private readonly chaosMs: number,
  ) {}

  async run(ctx: SimContext): Promise<void> {
    while (this.ledger.clientsDone < this.clients || ctx.time.now() < this.chaosMs) await sleep(100);
    const dbHost = ctx.topology.ipsInGroup("postgres")[0]!;
    const db = await this.connect(dbHost);
    try {
      await this.verify(db);
    } finally {
      await db.end().catch(() => {});
      this.ledger.checked = true;
    }
  }

  private async connect(host: string): Promise<pg.Client> {
    for (let attempt = 0; ; attempt++) {
      const client = new pg.Client({ host, port: 5432, user: "postgres", database: "postgres" });
      client.on("error", () => {});
      try {
        await client.connect();
        return client;
      } catch (error) {
        if (attempt >= 100) throw error;
        await sleep(200);
      }
    }
  }

  private async verify(db: pg.Client): Promise<void> {
    const stock = await db.query<{ id: number; stock: number }>("SELECT id, stock FROM products ORDER BY id");
    const orders = await db.query<{ id: number; product_id: number; qty: number; idempotency_key: string }>(
      "SELECT id, product_id, qty, idempotency_key FROM orders ORDER BY id",
    );
    for (const { id, stock: left } of stock.rows) {
      const ordered = orders.rows.filter((o) => o.product_id === id).reduce((sum, o) => sum + o.qty, 0);
      assertAlways(left + ordered === INITIAL_STOCK, "stock left plus ordered quantity is the initial stock", {
        productId: id,
        left,
        ordered,
      });
    }
    const byKey = new Map<string, typeof orders.rows>();
    for (const o of orders.rows) byKey.set(o.idempotency_key, [...(byKey.get(o.idempotency_key) ?? []), o]);
    for (const [key, rows] of byKey)
      assertAlways(rows.length === 1, "one order per idempotency key", { key, orders: rows.length });
    for (const placed of this.ledger.orders) {
      const rows = byKey.get(placed.key) ?? [];
      if (placed.outcome.kind === "placed") {
        const id = placed.outcome.id;
        const row = rows.find((r) => r.id === id);
        assertAlways(
          row !== undefined && row.product_id === placed.productId && row.qty === placed.qty,
          "an acknowledged order survives every crash",
          { key: placed.key, id },
        );
      } else if (placed.outcome.kind === "unanswered") {
        assertSometimes(rows.length > 0, "an order never answered was committed");
        assertSometimes(rows.length === 0, "an order never answered was not committed");
      }
    }
    assertSometimes(
      this.ledger.orders.some((o) => o.outcome.kind === "placed"),
      "some order was placed",
    );
  }
}
