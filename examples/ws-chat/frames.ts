/**
 * What travels over a room's WebSocket connections, each frame with an end-to-end checksum: the
 * simulated network, like a faulty NIC or middlebox, can flip bits that TCP's checksum misses, and
 * a WebSocket frame has no checksum of its own. A frame that fails it is refused, never believed.
 */
import { createHash } from "node:crypto";

/** A message of the room, numbered by the server in the order it accepted it. */
export interface RoomMessage {
  readonly type: "message";
  readonly seq: number;
  readonly from: string;
  readonly text: string;
}

/** The first frame of every connection: who the server is this life, and how far its room got. */
export interface Welcome {
  readonly type: "welcome";
  readonly epoch: string;
  readonly head: number;
}

export type ServerFrame = RoomMessage | Welcome;

/** A member's post. */
export interface Post {
  readonly type: "post";
  readonly from: string;
  readonly text: string;
}

/** Close code for a frame or a request that failed its checksum (4000-4999 are the application's). */
export const CORRUPT_CLOSE_CODE = 4000;

export function checksum(text: string): string {
  return createHash("sha1").update(text).digest("hex").slice(0, 16);
}

export function encode(frame: ServerFrame | Post): string {
  const body = JSON.stringify(frame);
  return JSON.stringify({ body, sum: checksum(body) });
}

/** The frame, or null when it was corrupted on the way. */
export function decode<T extends ServerFrame | Post>(data: unknown): T | null {
  try {
    const { body, sum } = JSON.parse(String(data)) as { body: string; sum: string };
    return typeof body === "string" && sum === checksum(body) ? (JSON.parse(body) as T) : null;
  } catch {
    return null;
  }
}

/** Where a member resumes: the room's life it knew and the last message it saw, checksummed too. */
export function resumeQuery(epoch: string, after: number): string {
  const fields = `epoch=${encodeURIComponent(epoch)}&after=${after}`;
  return `${fields}&sum=${checksum(fields)}`;
}

export function parseResumeQuery(url: string | undefined): { epoch: string; after: number } | null {
  const query = (url ?? "").split("?")[1] ?? "";
  const at = query.lastIndexOf("&sum=");
  if (at < 0 || checksum(query.slice(0, at)) !== query.slice(at + 5)) return null;
  const params = new URLSearchParams(query.slice(0, at));
  const after = Number(params.get("after"));
  return Number.isSafeInteger(after) && after >= 0 ? { epoch: params.get("epoch") ?? "", after } : null;
}
