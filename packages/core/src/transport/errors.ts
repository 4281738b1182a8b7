/**
 * The transport's typed errors. `instanceof TransportError` catches all of them; each names what
 * is known about the request's fate, because that decides whether a caller may retry.
 */
import { MoonpoolError } from "../errors.ts";

export class TransportError extends MoonpoolError {}

/** A frame whose CRC-32C does not match its token and payload: the stream is dropped. */
export class ChecksumMismatch extends TransportError {
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(
      `frame checksum mismatch (header 0x${expected.toString(16)}, computed 0x${actual.toString(16)}): ` +
        "the bytes were corrupted on the way; the connection is dropped and re-established",
    );
  }
}

/** A frame larger than the receiver's `maxPayloadBytes`: the stream is dropped. */
export class FrameTooLarge extends TransportError {
  constructor(
    readonly payloadBytes: number,
    readonly maxPayloadBytes: number,
  ) {
    super(
      `frame payload of ${payloadBytes} bytes exceeds maxPayloadBytes ${maxPayloadBytes}: ` +
        "send smaller messages or raise maxPayloadBytes on both sides",
    );
  }
}

/** A bounded peer queue (or failure-monitor waiter list) is full: the message was not queued. */
export class QueueFull extends TransportError {
  constructor(
    readonly queue: string,
    readonly capacity: number,
  ) {
    super(`${queue} is full (${capacity} entries): the peer is not draining; back off, or raise maxQueueSize`);
  }
}

/**
 * The server dropped the request without answering (its handler threw `BrokenPromise`, or the
 * server shut down with the request in hand). The request may have had effects.
 */
export class BrokenPromise extends TransportError {
  constructor(message = "the server dropped the request without a reply") {
    super(message);
  }
}

/** No endpoint (or no such method) at that token on the server: the request did not run. */
export class EndpointNotFound extends TransportError {
  constructor(
    readonly endpoint: string,
    detail = "",
  ) {
    super(`no endpoint ${endpoint} on the server${detail}: check the address and token, or that the service is served`);
  }
}

/** The request never left this process: no connection could carry it. It did not run. */
export class ConnectionFailed extends TransportError {
  constructor(
    readonly address: string,
    reason: string,
  ) {
    super(`request to ${address} was never sent: ${reason}`);
  }
}

/** `getReply` got no reply within its timeout. The request may have run, once or more. */
export class RequestTimeout extends TransportError {
  constructor(
    readonly timeoutMs: number,
    readonly address: string,
  ) {
    super(`no reply from ${address} within ${timeoutMs} ms; the request may have run (raise timeoutMs or check it)`);
  }
}

/** The request was sent, then the connection failed or the wait ended without a reply: it may or may not have run. */
export class MaybeDelivered extends TransportError {
  constructor(
    readonly address: string,
    reason: string,
  ) {
    super(`request to ${address} may or may not have been delivered: ${reason}`);
  }
}

/** A request or reply could not be encoded or decoded by the service's codec. */
export class SerializationError extends TransportError {}

/** The server's handler threw: its message travels back; the request ran (and failed). */
export class ApplicationError extends TransportError {
  constructor(message: string) {
    super(message);
  }
}
