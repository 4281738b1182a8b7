/**
 * The order API, on plain `node:http` as its authors would write it:
 *
 *   POST /orders       body {"sku", "qty"}: prices the sku with a `fetch` to the pricing service
 *                      (`http://pricing:8080`, the group's host name), appends the order to its log
 *                      and answers 201 {"id", "sku", "qty", "totalCents"}; 502 when pricing failed
 *                      or timed out, 400 for a bad body, 500 when the log failed
 *   GET  /orders/:id   200 the order, 404 for an id it never placed
 */
import http from "node:http";
import { type Durability, type Order, OrderLog } from "./order-log.ts";
import { PRICING_PORT } from "./pricing.ts";

export const ORDERS_PORT = 8080;
export const PRICING_URL = `http://pricing:${PRICING_PORT}`;
export const PRICING_TIMEOUT_MS = 300;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

/** The sku's price from the pricing service, or null when it could not be had in time. */
async function priceOf(sku: string): Promise<number | null> {
  try {
    const res = await fetch(`${PRICING_URL}/price/${encodeURIComponent(sku)}`, {
      signal: AbortSignal.timeout(PRICING_TIMEOUT_MS),
    });
    const body = (await res.json()) as { priceCents?: number };
    return res.ok && typeof body.priceCents === "number" ? body.priceCents : null;
  } catch {
    return null; // refused, reset, unknown name, timed out: the caller answers 502
  }
}

export class OrderService {
  private readonly orders = new Map<number, Order>();
  private nextId = 0;

  private constructor(private readonly log: OrderLog) {
    for (const order of log.recovered) this.orders.set(order.id, order);
    this.nextId = Math.max(-1, ...this.orders.keys()) + 1;
  }

  static async start(durability: Durability): Promise<OrderService> {
    return new OrderService(await OrderLog.open(durability));
  }

  get recoveredCount(): number {
    return this.log.recovered.length;
  }

  createServer(): http.Server {
    return http.createServer(async (req, res) => {
      try {
        const body = await readBody(req);
        if (req.method === "POST" && req.url === "/orders") return await this.place(body, res);
        const match = /^\/orders\/(\d+)$/.exec(req.url ?? "");
        if (req.method === "GET" && match !== null) {
          const order = this.orders.get(Number(match[1]));
          return order === undefined ? send(res, 404, { error: "no such order" }) : send(res, 200, order);
        }
        send(res, 404, { error: "no such route" });
      } catch (error) {
        if (!res.headersSent) send(res, 500, { error: String(error) });
      }
    });
  }

  private async place(body: string, res: http.ServerResponse): Promise<void> {
    const { sku, qty } = JSON.parse(body) as { sku?: unknown; qty?: unknown };
    if (typeof sku !== "string" || !/^[\w-]{1,64}$/.test(sku) || !Number.isInteger(qty) || (qty as number) < 1)
      return send(res, 400, { error: "expected {sku: 1 to 64 word characters, qty: positive integer}" });
    const price = await priceOf(sku);
    if (price === null) return send(res, 502, { error: "pricing unavailable" });
    const order: Order = { id: this.nextId++, sku, qty: qty as number, totalCents: price * (qty as number) };
    await this.log.append(order);
    this.orders.set(order.id, order);
    send(res, 201, order);
  }

  async close(): Promise<void> {
    await this.log.close();
  }
}
