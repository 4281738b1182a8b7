/**
 * An end-to-end checksum over each request and response (method or status, path, body): the
 * simulated network, like a faulty NIC or middlebox, can flip bits that TCP's checksum misses,
 * and a corrupted message must be refused rather than stored or believed.
 */
import { createHash } from "node:crypto";

export const CHECKSUM_HEADER = "x-checksum";

export function checksum(...parts: readonly (string | number)[]): string {
  return createHash("sha1").update(parts.join("\n")).digest("hex");
}
