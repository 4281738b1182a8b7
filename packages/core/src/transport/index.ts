/** The transport layer: peers, typed request/response services, delivery modes, failure monitor. */
export { crc32c, crc32cUpdate } from "./crc32c.ts";
export * from "./errors.ts";
export {
  TOKEN_BYTES,
  WELL_KNOWN_COUNT,
  PING_TOKEN,
  REPLY_TOKEN,
  wellKnownToken,
  isWellKnown,
  serviceToken,
  randomToken,
  isToken,
  formatEndpoint,
  type Token,
  type Endpoint,
} from "./token.ts";
export { WIRE_HEADER_BYTES, DEFAULT_MAX_PAYLOAD_BYTES, encodeWireFrame, WireDecoder, type WireFrame } from "./wire.ts";
export { jsonCodec, type Codec } from "./codec.ts";
export { LAN_PEER_CONFIG, WAN_PEER_CONFIG, peerConfig, type PeerConfig } from "./config.ts";
export { FailureMonitor, type AddressState, type FailureMonitorOptions } from "./failure-monitor.ts";
export { Peer, type OutgoingMessage } from "./peer.ts";
export {
  defineService,
  methodId,
  type ServiceShape,
  type ServiceDefinition,
  type ServiceImpl,
  type ServiceStub,
  type MethodStub,
  type MethodDefinition,
  type RequestContext,
  type RequestOf,
  type ReplyOf,
  type ServiceOptions,
  type TryGetReplyOptions,
  type GetReplyOptions,
} from "./service.ts";
export { Transport, DEFAULT_GET_REPLY_TIMEOUT_MS, type TransportOptions } from "./transport.ts";
