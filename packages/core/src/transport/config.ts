/**
 * How a peer keeps its connection: reconnection backoff, queue bounds, connect timeout and the
 * ping/pong liveness check. Two presets: `LAN_PEER_CONFIG` (one datacenter: react fast) and
 * `WAN_PEER_CONFIG` (across regions: tolerate slow links).
 */
import { InvalidConfiguration } from "../errors.ts";
import { DEFAULT_MAX_PAYLOAD_BYTES } from "./wire.ts";

export interface PeerConfig {
  /** First wait after a failed connect; doubled per failure up to `maxBackoffMs`. */
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  /** A connect that has not completed after this long counts as failed. */
  readonly connectTimeoutMs: number;
  /** Messages each queue (reliable, unreliable) holds while no connection takes them; more is `QueueFull`. */
  readonly maxQueueSize: number;
  /** Send a ping this often on an outgoing connection; 0 disables liveness checking. */
  readonly pingIntervalMs: number;
  /** A ping unanswered (and no other byte received) after this long is a miss. */
  readonly pingTimeoutMs: number;
  /** Misses in a row tolerated; one more closes the connection (the peer reconnects). */
  readonly toleratedPingMisses: number;
  /** Largest frame payload sent or accepted. */
  readonly maxPayloadBytes: number;
}

export const LAN_PEER_CONFIG: PeerConfig = Object.freeze({
  initialBackoffMs: 10,
  maxBackoffMs: 1_000,
  connectTimeoutMs: 500,
  maxQueueSize: 1_000,
  pingIntervalMs: 500,
  pingTimeoutMs: 1_000,
  toleratedPingMisses: 2,
  maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
});

export const WAN_PEER_CONFIG: PeerConfig = Object.freeze({
  initialBackoffMs: 500,
  maxBackoffMs: 60_000,
  connectTimeoutMs: 30_000,
  maxQueueSize: 5_000,
  pingIntervalMs: 5_000,
  pingTimeoutMs: 10_000,
  toleratedPingMisses: 5,
  maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
});

/** `LAN_PEER_CONFIG` with `overrides`, checked: a bad value is an `InvalidConfiguration` naming it. */
export function peerConfig(overrides: Partial<PeerConfig> = {}, base: PeerConfig = LAN_PEER_CONFIG): PeerConfig {
  const config = { ...base, ...overrides };
  const positive = ["initialBackoffMs", "maxBackoffMs", "connectTimeoutMs", "maxQueueSize", "maxPayloadBytes"] as const;
  for (const key of positive) {
    if (typeof config[key] !== "number" || !(config[key] > 0) || !Number.isFinite(config[key])) {
      throw new InvalidConfiguration(`peer config: ${key} must be a positive number, got ${String(config[key])}`);
    }
  }
  for (const key of ["pingIntervalMs", "pingTimeoutMs", "toleratedPingMisses"] as const) {
    if (typeof config[key] !== "number" || !(config[key] >= 0) || !Number.isFinite(config[key])) {
      throw new InvalidConfiguration(`peer config: ${key} must be a number >= 0, got ${String(config[key])}`);
    }
  }
  if (config.maxBackoffMs < config.initialBackoffMs) {
    throw new InvalidConfiguration(
      `peer config: maxBackoffMs (${config.maxBackoffMs}) must be >= initialBackoffMs (${config.initialBackoffMs})`,
    );
  }
  if (config.pingIntervalMs > 0 && !(config.pingTimeoutMs > 0)) {
    throw new InvalidConfiguration("peer config: pingTimeoutMs must be > 0 when pings are on (pingIntervalMs > 0)");
  }
  return Object.freeze(config);
}
