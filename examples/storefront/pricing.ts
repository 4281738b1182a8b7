/**
 * The pricing service, the second service the order API calls: plain `node:http`.
 *
 *   GET /price/:sku   200 {"sku", "priceCents"}, 404 for an unknown sku
 */
import http from "node:http";
import { CATALOGUE } from "./catalogue.ts";

export const PRICING_PORT = 8080;

export function createPricingService(): http.Server {
  return http.createServer((req, res) => {
    const match = /^\/price\/([\w-]+)$/.exec(req.url ?? "");
    const price = match === null ? undefined : CATALOGUE[match[1]!];
    res.setHeader("content-type", "application/json");
    if (req.method !== "GET" || price === undefined) {
      res.statusCode = 404;
      return res.end(JSON.stringify({ error: "unknown sku" }));
    }
    res.end(JSON.stringify({ sku: match![1], priceCents: price }));
  });
}
