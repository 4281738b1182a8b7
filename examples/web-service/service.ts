/**
 * The service under test: a small REST API on plain `node:http`, written as for production.
 *
 *   GET  /health      200 "ok"
 *   POST /items       body {"value": string}: 201 {"id"}, or 500 when the store fails
 *   GET  /items/:id   200 {"id", "value"}, 404 for an unknown id, or 500 when the store fails
 *
 * Every request and response carries an end-to-end checksum; a request that fails it answers 400.
 * `lostWrite` plants a bug: a failed store write is swallowed and answered 201.
 */
import http from "node:http";
import { CHECKSUM_HEADER, checksum } from "./integrity.ts";
import { ItemStore } from "./store.ts";

export interface ServiceOptions {
  readonly lostWrite?: boolean;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    [CHECKSUM_HEADER]: checksum(status, text),
  });
  res.end(text);
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

export function createService(store = new ItemStore(), options: ServiceOptions = {}): http.Server {
  return http.createServer(async (req, res) => {
    const url = req.url ?? "/";
    try {
      const body = await readBody(req);
      if (req.headers[CHECKSUM_HEADER] !== checksum(req.method ?? "", url, body))
        return send(res, 400, { error: "checksum mismatch" });
      if (req.method === "GET" && url === "/health") return send(res, 200, "ok");
      if (req.method === "POST" && url === "/items") {
        const { value } = JSON.parse(body) as { value: string };
        const id = store.newId();
        try {
          store.write(id, value);
        } catch (error) {
          if (!options.lostWrite) throw error; // the planted bug hides the failure from the client
        }
        return send(res, 201, { id });
      }
      const match = /^\/items\/([\w-]+)$/.exec(url);
      if (req.method === "GET" && match !== null) {
        const value = store.read(match[1]!);
        return value === undefined ? send(res, 404, { error: "not found" }) : send(res, 200, { id: match[1], value });
      }
      send(res, 404, { error: "no such route" });
    } catch (error) {
      if (!res.headersSent) send(res, 500, { error: String(error) });
    }
  });
}
