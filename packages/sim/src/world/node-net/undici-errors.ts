/**
 * Errors shaped like undici's own (`name`, `code`, message), for the parts of an HTTP client's
 * work the simulation does itself: connect, headers and body timeouts, and TLS. undici tells its
 * errors by a `Symbol.for` brand, so `instanceof errors.HeadersTimeoutError` holds for them in
 * Node's bundled undici and in any copy of the `undici` package alike.
 */

function undiciError(name: string, code: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  Object.assign(error, { code });
  const brands = error as unknown as Record<symbol, boolean>;
  brands[Symbol.for("undici.error.UND_ERR")] = true;
  brands[Symbol.for(`undici.error.${code}`)] = true;
  return error;
}

export function connectTimeoutError(hostname: string, port: number | string, timeoutMs: number): Error {
  return undiciError(
    "ConnectTimeoutError",
    "UND_ERR_CONNECT_TIMEOUT",
    `Connect Timeout Error (attempted address: ${hostname}:${port}, timeout: ${timeoutMs}ms)`,
  );
}

export function headersTimeoutError(): Error {
  return undiciError("HeadersTimeoutError", "UND_ERR_HEADERS_TIMEOUT", "Headers Timeout Error");
}

export function bodyTimeoutError(): Error {
  return undiciError("BodyTimeoutError", "UND_ERR_BODY_TIMEOUT", "Body Timeout Error");
}

/** A seed has no TLS: an `https:` origin fails its connect with this (the fetch's `cause`). */
export class FetchTlsInSimulation extends Error {
  readonly code = "ERR_MOONPOOL_FETCH_TLS";
  override name = "FetchTlsInSimulation";
}
