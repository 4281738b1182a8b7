/**
 * The orders service as its authors would write it: `node:http` and a `pg` Pool.
 *
 *   POST /orders { productId, qty, key }  201 { id } placed, 200 { id } already placed under this
 *                                         key, 409 out of stock, 500 when the database failed
 *   GET /orders/:id                       200 { id, productId, qty }, 404, 500
 *
 * Two planted bugs, each a classic of this stack:
 * - `"unlockedStock"`: the stock is read with a plain query before the writing transaction and
 *   written back as a number (read-modify-write outside the transaction): two orders that
 *   interleave both read the same stock and one decrement is lost.
 * - `"keyOutsideTransaction"`: the idempotency key is looked up before the transaction that writes
 *   the order: a client's retry that arrives while its first attempt is still running finds no key
 *   and places the order a second time.
 */
import http from "node:http";
import type pg from "pg";

export type OrdersVariant = "correct" | "unlockedStock" | "keyOutsideTransaction";

interface PlaceOrder {
  readonly productId: number;
  readonly qty: number;
  readonly key: string;
}

type Answer = { status: number; body: unknown };

class OutOfStock extends Error {}

function parseOrder(text: string): PlaceOrder | null {
  try {
    const o = JSON.parse(text) as Partial<PlaceOrder>;
    if (typeof o.productId === "number" && typeof o.qty === "number" && typeof o.key === "string")
      return { productId: o.productId, qty: o.qty, key: o.key };
  } catch {
    // a body cut or damaged on the way: answered 400 below
  }
  return null;
}

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A checked-out client whose connection breaks emits 'error' (the pool listens only while it is idle).
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    if (broken === undefined) await client.query("ROLLBACK").catch(() => {});
    broken ??= error instanceof OutOfStock ? undefined : (error as Error);
    throw error;
  } finally {
    client.off("error", onError);
    // A client that failed is destroyed, not handed to the next request in an unknown state.
    client.release(broken);
  }
}

async function existingOrder(db: pg.Pool | pg.PoolClient, key: string): Promise<number | null> {
  const found = await db.query<{ order_id: number }>("SELECT order_id FROM idempotency WHERE key = $1", [key]);
  return found.rows[0]?.order_id ?? null;
}

async function insertOrder(client: pg.PoolClient, order: PlaceOrder): Promise<number> {
  const inserted = await client.query<{ id: number }>(
    "INSERT INTO orders (product_id, qty, idempotency_key) VALUES ($1, $2, $3) RETURNING id",
    [order.productId, order.qty, order.key],
  );
  return inserted.rows[0]!.id;
}

/** The correct order: the key is claimed, the stock locked and written in one transaction. */
async function placeCorrect(pool: pg.Pool, order: PlaceOrder): Promise<Answer> {
  return inTransaction(pool, async (client) => {
    const claimed = await client.query(
      "INSERT INTO idempotency (key) VALUES ($1) ON CONFLICT (key) DO NOTHING RETURNING key",
      [order.key],
    );
    if (claimed.rowCount === 0) return { status: 200, body: { id: await existingOrder(client, order.key) } };
    const stock = await client.query<{ stock: number }>("SELECT stock FROM products WHERE id = $1 FOR UPDATE", [
      order.productId,
    ]);
    if ((stock.rows[0]?.stock ?? 0) < order.qty) throw new OutOfStock();
    await client.query("UPDATE products SET stock = stock - $1 WHERE id = $2", [order.qty, order.productId]);
    const id = await insertOrder(client, order);
    await client.query("UPDATE idempotency SET order_id = $1 WHERE key = $2", [id, order.key]);
    return { status: 201, body: { id } };
  });
}

/** Planted: the stock is read outside the transaction and written back as a value. */
async function placeUnlockedStock(pool: pg.Pool, order: PlaceOrder): Promise<Answer> {
  const existing = await existingOrder(pool, order.key);
  if (existing !== null) return { status: 200, body: { id: existing } };
  const stock = await pool.query<{ stock: number }>("SELECT stock FROM products WHERE id = $1", [order.productId]);
  const left = (stock.rows[0]?.stock ?? 0) - order.qty;
  if (left < 0) throw new OutOfStock();
  return inTransaction(pool, async (client) => {
    await client.query("UPDATE products SET stock = $1 WHERE id = $2", [left, order.productId]);
    const id = await insertOrder(client, order);
    await client.query("INSERT INTO idempotency (key, order_id) VALUES ($1, $2)", [order.key, id]);
    return { status: 201, body: { id } };
  });
}

/** Planted: the key is checked before, not inside, the transaction that writes the order. */
async function placeKeyOutside(pool: pg.Pool, order: PlaceOrder): Promise<Answer> {
  const existing = await existingOrder(pool, order.key);
  if (existing !== null) return { status: 200, body: { id: existing } };
  return inTransaction(pool, async (client) => {
    const stock = await client.query<{ stock: number }>("SELECT stock FROM products WHERE id = $1 FOR UPDATE", [
      order.productId,
    ]);
    if ((stock.rows[0]?.stock ?? 0) < order.qty) throw new OutOfStock();
    await client.query("UPDATE products SET stock = stock - $1 WHERE id = $2", [order.qty, order.productId]);
    const id = await insertOrder(client, order);
    await client.query("INSERT INTO idempotency (key, order_id) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", [
      order.key,
      id,
    ]);
    return { status: 201, body: { id } };
  });
}

const PLACE: Record<OrdersVariant, (pool: pg.Pool, order: PlaceOrder) => Promise<Answer>> = {
  correct: placeCorrect,
  unlockedStock: placeUnlockedStock,
  keyOutsideTransaction: placeKeyOutside,
};

async function getOrder(pool: pg.Pool, id: number): Promise<Answer> {
  const found = await pool.query<{ id: number; product_id: number; qty: number }>(
    "SELECT id, product_id, qty FROM orders WHERE id = $1",
    [id],
  );
  const row = found.rows[0];
  if (row === undefined) return { status: 404, body: { error: "no such order" } };
  return { status: 200, body: { id: row.id, productId: row.product_id, qty: row.qty } };
}

async function answer(pool: pg.Pool, variant: OrdersVariant, method: string, url: string, body: string) {
  if (method === "POST" && url === "/orders") {
    const order = parseOrder(body);
    if (order === null) return { status: 400, body: { error: "bad order" } };
    return PLACE[variant](pool, order);
  }
  const match = /^\/orders\/(\d+)$/.exec(url);
  if (method === "GET" && match !== null) return getOrder(pool, Number(match[1]));
  return { status: 404, body: { error: "not found" } };
}

export function createOrdersService(pool: pg.Pool, variant: OrdersVariant): http.Server {
  return http.createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      answer(pool, variant, request.method ?? "", request.url ?? "", body)
        .catch((error: unknown) =>
          error instanceof OutOfStock
            ? { status: 409, body: { error: "out of stock" } }
            : { status: 500, body: { error: String(error) } },
        )
        .then(({ status, body: out }) => {
          response.writeHead(status, { "content-type": "application/json" });
          response.end(JSON.stringify(out));
        });
    });
  });
}
