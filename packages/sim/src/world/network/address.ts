/** Simulated IPv4 addresses: the canonical `a.b.c.d:port` form every bind and connect takes. */
import { IoError } from "@moonpool/core";

const ADDR_PATTERN = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3}):(\d{1,5})$/;

/** Parses a canonical `a.b.c.d:port` address (port 1..65535) or throws `IoError("EINVAL")`. */
export function parseSimAddr(addr: string): { readonly ip: string; readonly port: number } {
  const m = typeof addr === "string" ? ADDR_PATTERN.exec(addr) : null;
  const canonical = (s: string, max: number, min: number): boolean =>
    String(Number(s)) === s && Number(s) <= max && Number(s) >= min;
  if (m === null || ![m[1]!, m[2]!, m[3]!, m[4]!].every((o) => canonical(o, 255, 0)) || !canonical(m[5]!, 65_535, 1)) {
    throw new IoError(
      "EINVAL",
      `invalid address ${JSON.stringify(addr)}: expected "ip:port" with an IPv4 ip and a port in 1..65535, e.g. "10.0.1.1:4500"`,
    );
  }
  return { ip: addr.slice(0, addr.lastIndexOf(":")), port: Number(m[5]) };
}

export function addrError(addr: string): IoError | null {
  try {
    parseSimAddr(addr);
    return null;
  } catch (error) {
    return error as IoError;
  }
}

export function ipOf(addr: string): string {
  return addr.slice(0, addr.lastIndexOf(":"));
}
