/**
 * The client side, as a production client would write it: `http.request` with a timeout, JSON
 * in and out, an end-to-end checksum both ways. A transport failure (refused, reset, timed out, a
 * response that fails its checksum, a request the server found corrupted) resolves to `{ status: null }`.
 */
import http from "node:http";
import { CHECKSUM_HEADER, checksum } from "./integrity.ts";

export interface Reply {
  /** The HTTP status, or null when no response arrived. */
  readonly status: number | null;
  readonly body: unknown;
}

export const REQUEST_TIMEOUT_MS = 1_000;

export function call(host: string, port: number, method: string, path: string, body?: unknown): Promise<Reply> {
  return new Promise((resolve) => {
    const payload = body === undefined ? "" : JSON.stringify(body);
    const headers = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(payload),
      [CHECKSUM_HEADER]: checksum(method, path, payload),
    };
    const req = http.request({ host, port, method, path, headers, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        const intact = res.headers[CHECKSUM_HEADER] === checksum(status, text) && status !== 400;
        resolve(intact ? { status, body: JSON.parse(text) } : { status: null, body: undefined });
      });
      res.on("error", () => resolve({ status: null, body: undefined }));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on("error", () => resolve({ status: null, body: undefined }));
    req.end(payload);
  });
}
