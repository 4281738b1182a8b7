/** `ip:port` addresses for the production network: parsing, formatting and Node error mapping. */
import { isIPv4, isIPv6 } from "node:net";
import { IoError } from "../errors.ts";

export interface SocketAddress {
  readonly ip: string;
  readonly port: number;
  readonly family: 4 | 6;
}

const FORMAT_HINT = 'expected "ip:port" such as "127.0.0.1:4500" or "[::1]:4500" (hostnames are not resolved)';

/**
 * Parses `"a.b.c.d:port"` or `"[ipv6]:port"`. Port 0 (any free port) is allowed only when
 * `allowPortZero` is set (for `bind`). Throws `IoError("EINVAL")` naming the problem.
 */
export function parseAddr(addr: string, allowPortZero = false): SocketAddress {
  if (typeof addr !== "string") {
    throw new IoError("EINVAL", `address must be a string, got ${typeof addr}: ${FORMAT_HINT}`);
  }
  let ip: string;
  let portText: string;
  let family: 4 | 6;
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(addr);
  if (bracketed !== null) {
    ip = bracketed[1]!;
    portText = bracketed[2]!;
    family = 6;
    if (!isIPv6(ip))
      throw new IoError("EINVAL", `invalid address '${addr}': '${ip}' is not an IPv6 address; ${FORMAT_HINT}`);
  } else {
    const colon = addr.lastIndexOf(":");
    if (colon < 0) throw new IoError("EINVAL", `invalid address '${addr}': missing ':port'; ${FORMAT_HINT}`);
    ip = addr.slice(0, colon);
    portText = addr.slice(colon + 1);
    family = 4;
    if (ip.includes(":")) {
      throw new IoError("EINVAL", `invalid address '${addr}': put an IPv6 address in brackets, like "[::1]:4500"`);
    }
    if (!isIPv4(ip))
      throw new IoError("EINVAL", `invalid address '${addr}': '${ip}' is not an IPv4 address; ${FORMAT_HINT}`);
  }
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= (allowPortZero ? 0 : 1) && port <= 65535)) {
    const range = allowPortZero ? "0 ..= 65535 (0 picks a free port)" : "1 ..= 65535";
    throw new IoError("EINVAL", `invalid address '${addr}': port '${portText}' is not in ${range}`);
  }
  return { ip, port, family };
}

/** `ip:port`, with IPv6 in brackets and IPv4-mapped IPv6 (`::ffff:1.2.3.4`) shown as IPv4. */
export function formatAddr(ip: string | undefined, port: number | undefined): string {
  let host = ip ?? "0.0.0.0";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(host);
  if (mapped !== null) host = mapped[1]!;
  return host.includes(":") ? `[${host}]:${port ?? 0}` : `${host}:${port ?? 0}`;
}

/** Node stream errors that mean "this side can no longer write". */
const STREAM_CODES: Readonly<Record<string, string>> = {
  ERR_STREAM_DESTROYED: "EPIPE",
  ERR_STREAM_WRITE_AFTER_END: "EPIPE",
  ERR_SOCKET_CLOSED: "EPIPE",
  ERR_SOCKET_CLOSED_BEFORE_CONNECTION: "ECONNRESET",
};

/** Wraps a Node error as `IoError` with its `code` (`ECONNREFUSED`, `EADDRINUSE`, ...). */
export function toIoError(error: unknown, context: string): IoError {
  if (error instanceof IoError) return error;
  const rawCode = (error as { code?: unknown } | null)?.code;
  const code = typeof rawCode === "string" ? (STREAM_CODES[rawCode] ?? rawCode) : "EIO";
  const detail = error instanceof Error ? error.message : String(error);
  const io = new IoError(code, `${context} (${detail})`);
  io.cause = error;
  return io;
}
