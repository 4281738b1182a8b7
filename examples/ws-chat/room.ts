/**
 * The chat room, written as for production: a `ws` WebSocketServer on a plain `http.createServer`.
 * The server numbers every post and broadcasts it; a member that reconnects says which message it
 * saw last, and the room sends it what it missed. The history lives in memory: a restarted server
 * is a new life of the room (a new `epoch`) and starts again from message 1.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import { CORRUPT_CLOSE_CODE, decode, encode, parseResumeQuery, type Post, type RoomMessage } from "./frames.ts";

export const ROOM_PORT = 9000;
/** The server pings every connection this often and drops one that did not answer the last ping. */
export const HEARTBEAT_MS = 500;

export interface RoomOptions {
  /** The planted bug: a resuming member is sent the history from one message too late. */
  readonly skipOnResume?: boolean;
}

export interface Room {
  readonly server: http.Server;
  close(): void;
}

export function createRoom(options: RoomOptions = {}): Room {
  const epoch = randomUUID();
  const history: RoomMessage[] = [];
  const server = http.createServer((_request, response) => response.writeHead(426).end("use a WebSocket\n"));
  const wss = new WebSocketServer({ server });
  const alive = new WeakMap<WebSocket, boolean>();

  wss.on("connection", (socket, request) => {
    socket.on("error", () => {}); // a broken connection closes; the member reconnects
    const resume = parseResumeQuery(request.url);
    if (resume === null) return socket.close(CORRUPT_CLOSE_CODE, "corrupted request");
    alive.set(socket, true);
    socket.on("pong", () => alive.set(socket, true));
    socket.send(encode({ type: "welcome", epoch, head: history.length }));
    // Messages are numbered from 1: message n is history[n - 1].
    const from = resume.epoch === epoch ? resume.after + (options.skipOnResume && resume.after > 0 ? 1 : 0) : 0;
    for (const message of history.slice(from)) socket.send(encode(message));
    socket.on("message", (data) => {
      const post = decode<Post>(data);
      if (post === null || post.type !== "post") return socket.close(CORRUPT_CLOSE_CODE, "corrupted frame");
      const message: RoomMessage = { type: "message", seq: history.length + 1, from: post.from, text: post.text };
      history.push(message);
      const frame = encode(message);
      for (const member of wss.clients) if (member.readyState === member.OPEN) member.send(frame);
    });
  });

  // ws's documented heartbeat: a connection that did not answer the last ping is gone.
  const heartbeat = setInterval(() => {
    for (const socket of wss.clients) {
      if (alive.get(socket) === false) {
        socket.terminate();
        continue;
      }
      alive.set(socket, false);
      socket.ping();
    }
  }, HEARTBEAT_MS);

  return {
    server,
    close() {
      clearInterval(heartbeat);
      for (const socket of wss.clients) socket.terminate();
      wss.close();
      server.close();
    },
  };
}
