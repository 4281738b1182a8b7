/**
 * Endpoint tokens: 128-bit identifiers written as 32 lowercase hex digits. The well-known range
 * (first 64 bits all ones, second = index below `WELL_KNOWN_COUNT`) is reserved for the
 * transport's own endpoints; services get a token derived from their name, or a random one.
 */
import { crc32c } from "./crc32c.ts";
import type { RandomProvider } from "../providers.ts";

export type Token = string;

/** Where a message goes: a process address (`ip:port`) and an endpoint token in it. */
export interface Endpoint {
  readonly address: string;
  readonly token: Token;
}

export const TOKEN_BYTES = 16;
export const WELL_KNOWN_COUNT = 64;
const WELL_KNOWN_PREFIX = "ffffffffffffffff";

function hex32(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}

export function wellKnownToken(index: number): Token {
  if (!Number.isInteger(index) || index < 0 || index >= WELL_KNOWN_COUNT) {
    throw new RangeError(`well-known token index must be an integer 0..${WELL_KNOWN_COUNT - 1}, got ${String(index)}`);
  }
  return WELL_KNOWN_PREFIX + hex32(0) + hex32(index);
}

export function isWellKnown(token: Token): boolean {
  return token.startsWith(WELL_KNOWN_PREFIX);
}

/** Liveness probes (ping/pong). */
export const PING_TOKEN = wellKnownToken(0);
/** Replies to requests, matched by request id. */
export const REPLY_TOKEN = wellKnownToken(1);

const encoder = new TextEncoder();

/** The token a service gets by default: stable across processes and releases as long as the name is. */
export function serviceToken(serviceName: string): Token {
  const a = crc32c(encoder.encode(`moonpool.service/${serviceName}`));
  const b = crc32c(encoder.encode(serviceName));
  return "5e" + hex32(a).slice(2) + hex32(b) + hex32(a ^ 0x5bd1e995) + hex32(b ^ 0x1b873593);
}

/** A fresh random token (never in the well-known range). */
export function randomToken(random: RandomProvider): Token {
  let token = "d" + hex32(random.random()).slice(1);
  for (let i = 0; i < 3; i++) token += hex32(random.random());
  return token;
}

export function isToken(value: unknown): value is Token {
  return typeof value === "string" && /^[0-9a-f]{32}$/.test(value);
}

export function formatEndpoint(endpoint: Endpoint): string {
  return `${endpoint.address}/${endpoint.token}`;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function writeToken(token: Token, into: Uint8Array, offset: number): void {
  for (let i = 0; i < TOKEN_BYTES; i++) into[offset + i] = parseInt(token.slice(2 * i, 2 * i + 2), 16);
}

export function readToken(from: Uint8Array, offset: number): Token {
  let out = "";
  for (let i = 0; i < TOKEN_BYTES; i++) out += HEX[from[offset + i]!]!;
  return out;
}
