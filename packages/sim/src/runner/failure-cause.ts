/**
 * What a failure is, for grouping: its kind, the assertion it violated or the class (and code) of
 * the error thrown, and where in user code. Messages name the data a seed happened to use
 * (document ids, uuids, file paths, ports, times): those parts are normalised out, so one bug met
 * with different data is one group, and two different assertions stay two.
 */
import type { SeedFailure } from "./seed-result.ts";
import { formatLocation, type SourceLocation } from "./source-location.ts";

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** An absolute, home, drive or relative path with at least one separator (`/tmp/x.db`, `./data/a`, `C:\x`). */
const PATH =
  /(?<![\w.])(?:[A-Za-z]:[\\/]|~[\\/]|\.{1,2}[\\/]|[\\/])[\w.@~+-]+(?:[\\/][\w.@~+-]*)*|[\w.@~+-]+(?:[\\/][\w.@~+-]+){2,}/g;
/** A URL's scheme and authority, before paths are replaced (`http://10.0.1.1:80/x` keeps its shape). */
const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/'"`]+/gi;
/** A token of letters and digits mixed (hex digests, nanoids, `doc-4f1c2a`), 6 characters or more. */
const MIXED_ID = /\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{6,}\b/g;
const HEX_NUMBER = /\b0x[0-9a-f]+\b/gi;
const NUMBER = /\d+(?:\.\d+)?/g;

/** `text` without the parts that vary with a seed's data: uuids, URLs' hosts, paths, mixed ids, numbers. */
export function normaliseMessage(text: string): string {
  return text
    .replace(UUID, "<uuid>")
    .replace(URL, (url) => `${url.slice(0, url.indexOf("://"))}://<host>`)
    .replace(PATH, "<path>")
    .replace(HEX_NUMBER, "<hex>")
    .replace(MIXED_ID, "<id>")
    .replace(NUMBER, "#");
}

/** The class named by an error's first stack line or its message (`TypeError`, `IoError`, `AbortError`). */
export function errorClass(failure: SeedFailure): string | null {
  const firstLine = failure.stack?.split("\n", 1)[0] ?? "";
  const fromStack = /^([A-Z][\w$]*(?:Error|Exception|Rejection))\b/.exec(firstLine);
  if (fromStack !== null) return fromStack[1]!;
  const fromMessage = /\b([A-Z][\w$]*(?:Error|Exception|Rejection)):/.exec(failure.message);
  return fromMessage !== null ? fromMessage[1]! : null;
}

/** A Node-style error code in the message (`ECONNRESET`, `ERR_STREAM_DESTROYED`), or null. */
function errorCode(message: string): string | null {
  return /\b(E[A-Z]{3,}|ERR_[A-Z_]+)\b/.exec(message)?.[1] ?? null;
}

/**
 * The grouping key: kind, then the violated assertion (normalised) or the error's class and code,
 * then the user code location; the normalised message stands in for a location when there is none.
 */
export function causeKey(failure: SeedFailure, location: SourceLocation | null): string {
  const parts: string[] = [failure.kind];
  if (failure.property !== undefined) parts.push(`assertion ${normaliseMessage(failure.property)}`);
  else {
    const type = errorClass(failure);
    const code = errorCode(failure.message);
    if (type !== null) parts.push(type);
    if (code !== null) parts.push(code);
  }
  if (location !== null) parts.push(`at ${formatLocation(location, "/")}`);
  else if (failure.property === undefined) parts.push(normaliseMessage(failure.message));
  return parts.join(" | ");
}
