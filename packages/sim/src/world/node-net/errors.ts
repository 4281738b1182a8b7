/** Errors shaped like Node's own socket errors (`code`, `errno`, `syscall`, `address`, `port`). */
import { IoError } from "@moonpool/core";

/** libuv's negative errno values on Linux, which Node reports in `error.errno`. */
const ERRNO: Readonly<Record<string, number>> = {
  ECONNREFUSED: -111,
  ECONNRESET: -104,
  ETIMEDOUT: -110,
  EPIPE: -32,
  EADDRINUSE: -98,
  EADDRNOTAVAIL: -99,
  EINVAL: -22,
  ENOTFOUND: -3008,
  EBADF: -9,
};

export interface NodeSystemError extends Error {
  code: string;
  errno?: number;
  syscall: string;
  address?: string;
  port?: number;
}

/** `connect ECONNREFUSED 10.0.0.1:80`, with the fields Node sets, plus what the simulation said. */
export function systemError(
  code: string,
  syscall: string,
  address?: string,
  port?: number,
  detail?: string,
): NodeSystemError {
  const where = address === undefined ? "" : port === undefined ? ` ${address}` : ` ${address}:${port}`;
  const error = new Error(`${syscall} ${code}${where}${detail === undefined ? "" : ` (${detail})`}`) as NodeSystemError;
  error.code = code;
  if (ERRNO[code] !== undefined) error.errno = ERRNO[code];
  error.syscall = syscall;
  if (address !== undefined) error.address = address;
  if (port !== undefined) error.port = port;
  return error;
}

/** A provider error (`IoError`) as the error Node's socket would have emitted for it. */
export function fromIoError(error: unknown, syscall: string, address?: string, port?: number): Error {
  if (error instanceof IoError) {
    const detail = error.message.startsWith(`${error.code}: `)
      ? error.message.slice(error.code.length + 2)
      : error.message;
    return systemError(error.code, syscall, address, port, detail);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** libuv's getaddrinfo error numbers on Linux. */
const GAI_ERRNO: Readonly<Record<string, number>> = { ENOTFOUND: -3008, EAI_AGAIN: -3001 };

/** `getaddrinfo ENOTFOUND app-9`, as `dns.lookup` (and `net.connect`) report it. */
export function lookupError(code: string, hostname: string): Error {
  return Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), {
    errno: GAI_ERRNO[code],
    code,
    syscall: "getaddrinfo",
    hostname,
  });
}
