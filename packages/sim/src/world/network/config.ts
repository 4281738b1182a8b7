/**
 * What the simulated network can do wrong, as plain data: latency shapes and every fault family
 * (docs/fault-catalogue.md). The network (`network.ts`) applies a `NetworkConfig`; which configuration a
 * seed gets (baseline, random, swarm, knobs) is the chaos layer's decision (`chaos/network-chaos.ts`).
 *
 * Durations are integer microseconds (`…Us`): network latencies are far below a millisecond.
 * A range `[minUs, maxUs]` is half-open, drawn uniformly from the `sim` stream; `[x, x]` means x.
 *
 * The families gated by buggify (connect failure, partial I/O, bit flips, random close) first
 * need their buggify point activated for the seed (50 %): a world without an
 * active simulation (`NEVER_FIRES`) never injects them.
 */
import { BUGGIFY_FIRE_PROBABILITY } from "@moonpool/core";
import type { RandomStream } from "../../engine/rng.ts";

/** A half-open range of microseconds `[minUs, maxUs)`; `[x, x]` always yields x. */
export type RangeUs = readonly [minUs: number, maxUs: number];

/** How one operation's latency is drawn. */
export type LatencyDistribution =
  | { readonly shape: "uniform"; readonly rangeUs: RangeUs }
  /** `minUs + meanUs · (−ln(1 − u))`: mostly fast, with a long tail. */
  | { readonly shape: "exponential"; readonly minUs: number; readonly meanUs: number }
  /** Usually `fastUs`, with probability `slowProbability` from `slowUs` (a second, slow mode). */
  | { readonly shape: "bimodal"; readonly fastUs: RangeUs; readonly slowUs: RangeUs; readonly slowProbability: number };

export interface NetworkLatencyShapes {
  /** From `bind()` to listening. */
  readonly bind: LatencyDistribution;
  /** From pairing a queued connection with an `accept()` to that accept resolving. */
  readonly accept: LatencyDistribution;
  /** From `connect()` to the connect arriving at the listener. */
  readonly connect: LatencyDistribution;
  /** From `write()`/`close()` to the chunk (or FIN) reaching the peer, before FIFO spacing. */
  readonly write: LatencyDistribution;
}

/** Connect failure modes. */
export type ConnectFailureMode =
  /** Connects never fail by chaos. */
  | "disabled"
  /** When the `network.connectFailure` buggify point fires, the connect is refused. */
  | "alwaysFail"
  /** When it fires, the connect hangs with `connectFailureProbability`, and is refused otherwise. */
  | "probabilistic";
export const CONNECT_FAILURE_MODES: readonly ConnectFailureMode[] = ["disabled", "alwaysFail", "probabilistic"];

/** How a random partition picks the IPs cut off from the rest. */
export type PartitionStrategy =
  /** Each IP joins the cut-off side with probability 1/2 (nothing happens if a side is empty). */
  | "random"
  /** A uniformly sized side: 1 ..= n−1 IPs of a seeded shuffle. */
  | "uniformSize"
  /** One IP alone against everyone else. */
  | "isolateSingle";
export const PARTITION_STRATEGIES: readonly PartitionStrategy[] = ["random", "uniformSize", "isolateSingle"];

export interface NetworkConfig {
  readonly latency: NetworkLatencyShapes;
  /**
   * Per-pair latency (FDB SimClogging): each ordered IP pair draws one extra latency from this
   * range the first time it is used, added to every connect and chunk on that pair. `[0, 0]` = off.
   */
  readonly pairLatencyUs: RangeUs;

  /**
   * How long a connect whose handshake gets no answer (its SYN dropped by a `connect_hang`, or a
   * partition between the two IPs) waits before failing with ETIMEDOUT; 0: it waits until the
   * partition heals, shutdown or a crash. Absent: `DEFAULT_CONNECT_TIMEOUT_US` (Linux's 127 s).
   */
  readonly connectTimeoutUs?: number;

  readonly connectFailureMode: ConnectFailureMode;
  /** In "probabilistic" mode: the probability that a failing connect hangs rather than being refused. */
  readonly connectFailureProbability: number;

  /** When `network.partialWrite` fires (per piece), a write goes out as 1 ..= min(len − 1, this) bytes first; 0 = off. */
  readonly partialWriteMaxBytes: number;
  /** When `network.partialRead` fires, a read returns 1 ..= min(available − 1, this) bytes; 0 = off. Never 0 bytes. */
  readonly partialReadMaxBytes: number;

  /** Per delivered chunk, the `network.bitFlip` buggify probability. */
  readonly bitFlipProbability: number;
  /** Bits flipped = clamp(1 + leading zeros of a u32, min, max): a power law (half the flips are single bits). */
  readonly bitFlipMinBits: number;
  readonly bitFlipMaxBits: number;
  /** No bit flip anywhere within this long after the previous one. */
  readonly bitFlipCooldownUs: number;

  /** Per read or write call, the `network.randomClose` buggify probability. */
  readonly randomCloseProbability: number;
  /** No random close anywhere within this long after the previous one. */
  readonly randomCloseCooldownUs: number;
  /** Share of random closes that are an RST (both ends see ECONNRESET at once) instead of a silent one-way close. */
  readonly randomCloseExplicitRatio: number;

  /** Per read and per write call (independently), the probability that this side clogs. */
  readonly clogProbability: number;
  /** How long a clog holds the reads (or writes) of that connection end. */
  readonly clogDurationUs: RangeUs;

  /** Per network event (delivery or connect arrival), the probability of a random partition when none is active. */
  readonly partitionProbability: number;
  readonly partitionDurationUs: RangeUs;
  readonly partitionStrategy: PartitionStrategy;

  /** `ctx.time.timer()` runs ahead of simulated time by at most `clockDriftMaxUs` per process. */
  readonly clockDriftEnabled: boolean;
  readonly clockDriftMaxUs: number;

  /** Every sleep: with `buggifiedDelayProbability`, `+ buggifiedDelayMaxUs · u^1000` (rarely more than a few µs). */
  readonly buggifiedDelayEnabled: boolean;
  readonly buggifiedDelayMaxUs: number;
  readonly buggifiedDelayProbability: number;
}

/**
 * Linux's connect timeout with its default `net.ipv4.tcp_syn_retries = 6`: the SYN is sent at 0 s
 * and retried after 1, 2, 4, 8, 16 and 32 s, and the connect gives up 64 s after the last one.
 */
export const DEFAULT_CONNECT_TIMEOUT_US = 127_000_000;

/** The baseline latency ranges of the default network configuration (all uniform). */
export const BASELINE_LATENCY = Object.freeze({
  bindUs: [50, 150] as const,
  acceptUs: [1_000, 6_000] as const,
  connectUs: [1_000, 11_000] as const,
  writeUs: [100, 600] as const,
});

export function uniform(rangeUs: RangeUs): LatencyDistribution {
  return { shape: "uniform", rangeUs };
}

export const BASELINE_LATENCY_SHAPES: NetworkLatencyShapes = Object.freeze({
  bind: uniform(BASELINE_LATENCY.bindUs),
  accept: uniform(BASELINE_LATENCY.acceptUs),
  connect: uniform(BASELINE_LATENCY.connectUs),
  write: uniform(BASELINE_LATENCY.writeUs),
});

/**
 * Baseline timing with every fault family off: what a bare `World` uses, what
 * `.networkFaults("none")` selects, and (with the seed's latencies) what recovery mode leaves.
 */
export const NETWORK_NO_FAULTS: NetworkConfig = Object.freeze({
  latency: BASELINE_LATENCY_SHAPES,
  pairLatencyUs: [0, 0] as const,
  connectFailureMode: "disabled",
  connectFailureProbability: 0,
  partialWriteMaxBytes: 0,
  partialReadMaxBytes: 0,
  bitFlipProbability: 0,
  bitFlipMinBits: 1,
  bitFlipMaxBits: 32,
  bitFlipCooldownUs: 0,
  randomCloseProbability: 0,
  randomCloseCooldownUs: 0,
  randomCloseExplicitRatio: 0,
  clogProbability: 0,
  clogDurationUs: [0, 0] as const,
  partitionProbability: 0,
  partitionDurationUs: [0, 0] as const,
  partitionStrategy: "random",
  clockDriftEnabled: false,
  clockDriftMaxUs: 0,
  buggifiedDelayEnabled: false,
  buggifiedDelayMaxUs: 0,
  buggifiedDelayProbability: 0,
});

/**
 * `config` with every fault family switched off and its timing kept (latency shapes, per-pair
 * latency): what recovery mode applies at the chaos cutoff. Timing is the network's model, not an
 * injected fault, so the workload reconverges on the same links it had.
 */
export function withFaultsOff(config: NetworkConfig): NetworkConfig {
  return Object.freeze({
    ...NETWORK_NO_FAULTS,
    latency: config.latency,
    pairLatencyUs: config.pairLatencyUs,
    ...(config.connectTimeoutUs !== undefined ? { connectTimeoutUs: config.connectTimeoutUs } : {}),
  });
}

/** Buggify point ids of the gated families: stable, so recipes stay valid when code moves. */
export const NETWORK_BUGGIFY_IDS = Object.freeze({
  connectFailure: "network.connectFailure",
  partialWrite: "network.partialWrite",
  partialRead: "network.partialRead",
  bitFlip: "network.bitFlip",
  randomClose: "network.randomClose",
});

/** Firing probability of the families gated by a plain `buggify()` (connect failure, partial I/O). */
export const NETWORK_BUGGIFY_FIRE_PROBABILITY = BUGGIFY_FIRE_PROBABILITY;

/**
 * `kind` of every `sim_fault` event the network, the clocks and sleeps record. Fields:
 * connection faults carry `connectionId`, `from` and `to` (the IPs of the direction whose bytes
 * were affected); partitions `from`/`to` or `ip`; clock and sleep faults `ip`.
 */
export const NETWORK_FAULT_KINDS = Object.freeze({
  /** `{ from, to, addr }`: a connect refused by chaos. */
  connectRefused: "connect_refused",
  /** `{ from, to, addr }`: a connect whose SYN is dropped: it fails after the connect timeout (ETIMEDOUT). */
  connectHang: "connect_hang",
  /** `{ connectionId, from, to, sentBytes, remainingBytes }` */
  partialWrite: "partial_write",
  /** `{ connectionId, from, to, readBytes, remainingBytes }` */
  partialRead: "partial_read",
  /** `{ connectionId, from, to, flipCount, chunkBytes }` */
  bitFlip: "bit_flip",
  /** `{ connectionId, from, to, explicit, localSendClosed, peerRecvClosed }` */
  randomClose: "random_close",
  /** `{ connectionId, from, to, side: "read" | "write", durationMs }` */
  clog: "clog",
  /** `{ from, to, durationMs, cause: "random" | "manual" }`: traffic from → to is held. */
  partitionCreated: "partition_created",
  /** `{ from, to, cause: "healed" | "expired" | "recovery" }` */
  partitionHealed: "partition_healed",
  /** `{ ip, durationMs }`: nothing sent by ip gets through. */
  sendPartitionCreated: "send_partition_created",
  sendPartitionHealed: "send_partition_healed",
  /** `{ ip, durationMs }`: nothing sent to ip gets through. */
  recvPartitionCreated: "recv_partition_created",
  recvPartitionHealed: "recv_partition_healed",
  /** `{ ip, driftMaxMs }`: the first time a process's `timer()` reads ahead of simulated time. */
  clockDrift: "clock_drift",
  /** `{ ip, delayMs }`: a sleep lengthened by the buggified delay (only when ≥ 1 µs). */
  sleepDelayed: "sleep_delayed",
});

/** Where the network asks buggify; the runner passes the seed's `Buggify`. */
export interface FaultGate {
  fires(id: string, probability: number): boolean;
}

/** A gate outside any simulation: buggify-gated families never fire. */
export const NEVER_FIRES: FaultGate = Object.freeze({ fires: () => false });

function rangeSample([minUs, maxUs]: RangeUs, sim: RandomStream): number {
  return maxUs > minUs ? sim.rangeInt(minUs, maxUs) : minUs;
}

/** One latency draw in whole microseconds. */
export function sampleLatencyUs(dist: LatencyDistribution, sim: RandomStream): number {
  switch (dist.shape) {
    case "uniform":
      return rangeSample(dist.rangeUs, sim);
    case "exponential":
      return dist.minUs + Math.floor(dist.meanUs * -Math.log(1 - sim.ratio()));
    case "bimodal":
      // The selector is always drawn, so draw counts do not depend on which mode wins.
      return rangeSample(sim.ratio() < dist.slowProbability ? dist.slowUs : dist.fastUs, sim);
  }
}

export function sampleRangeUs(rangeUs: RangeUs, sim: RandomStream): number {
  return rangeSample(rangeUs, sim);
}

// --- validation (custom configurations passed to the builder) -----------------------------------

function isProbability(p: unknown): boolean {
  return typeof p === "number" && p >= 0 && p <= 1;
}

function isDuration(us: unknown): boolean {
  return typeof us === "number" && Number.isSafeInteger(us) && us >= 0;
}

function rangeError(range: unknown, what: string): string | null {
  if (
    !Array.isArray(range) ||
    range.length !== 2 ||
    !isDuration(range[0]) ||
    !isDuration(range[1]) ||
    range[0] > range[1]
  ) {
    return `${what} must be [minUs, maxUs] with integers 0 <= minUs <= maxUs, got ${JSON.stringify(range)}`;
  }
  return null;
}

function latencyError(dist: LatencyDistribution | undefined, what: string): string | null {
  if (dist === undefined || dist === null || typeof dist !== "object")
    return `${what} must be a latency distribution ({ shape: "uniform", rangeUs: [min, max] }, ...)`;
  switch (dist.shape) {
    case "uniform":
      return rangeError(dist.rangeUs, `${what}.rangeUs`);
    case "exponential":
      return isDuration(dist.minUs) && isDuration(dist.meanUs)
        ? null
        : `${what}: exponential needs integer minUs >= 0 and meanUs >= 0`;
    case "bimodal":
      return (
        rangeError(dist.fastUs, `${what}.fastUs`) ??
        rangeError(dist.slowUs, `${what}.slowUs`) ??
        (isProbability(dist.slowProbability) ? null : `${what}.slowProbability must be between 0 and 1`)
      );
    default:
      return `${what}.shape must be "uniform", "exponential" or "bimodal", got ${JSON.stringify((dist as { shape?: unknown }).shape)}`;
  }
}

/** Every problem with `config`, as messages that say what to change (empty when valid). */
export function networkConfigErrors(config: NetworkConfig): string[] {
  const errors: (string | null)[] = [];
  const latency = config.latency ?? ({} as Partial<NetworkLatencyShapes>);
  for (const op of ["bind", "accept", "connect", "write"] as const)
    errors.push(latencyError(latency[op], `latency.${op}`));
  errors.push(rangeError(config.pairLatencyUs, "pairLatencyUs"));
  if (!CONNECT_FAILURE_MODES.includes(config.connectFailureMode))
    errors.push(`connectFailureMode must be one of ${CONNECT_FAILURE_MODES.join(", ")}`);
  if (!PARTITION_STRATEGIES.includes(config.partitionStrategy))
    errors.push(`partitionStrategy must be one of ${PARTITION_STRATEGIES.join(", ")}`);
  for (const key of [
    "connectFailureProbability",
    "bitFlipProbability",
    "randomCloseProbability",
    "randomCloseExplicitRatio",
    "clogProbability",
    "partitionProbability",
    "buggifiedDelayProbability",
  ] as const) {
    if (!isProbability(config[key]))
      errors.push(`${key} must be a probability between 0 and 1, got ${String(config[key])}`);
  }
  for (const key of [
    "partialWriteMaxBytes",
    "partialReadMaxBytes",
    "bitFlipCooldownUs",
    "randomCloseCooldownUs",
    "clockDriftMaxUs",
    "buggifiedDelayMaxUs",
  ] as const) {
    if (!isDuration(config[key])) errors.push(`${key} must be an integer >= 0, got ${String(config[key])}`);
  }
  if (config.connectTimeoutUs !== undefined && !isDuration(config.connectTimeoutUs))
    errors.push(
      `connectTimeoutUs must be an integer number of microseconds >= 0 (0: no timeout), got ${String(config.connectTimeoutUs)}`,
    );
  if (
    !Number.isInteger(config.bitFlipMinBits) ||
    !Number.isInteger(config.bitFlipMaxBits) ||
    config.bitFlipMinBits < 1 ||
    config.bitFlipMaxBits < config.bitFlipMinBits
  ) {
    errors.push(
      `bitFlipMinBits/bitFlipMaxBits must be integers with 1 <= min <= max, got ${config.bitFlipMinBits}/${config.bitFlipMaxBits}`,
    );
  }
  errors.push(
    rangeError(config.clogDurationUs, "clogDurationUs"),
    rangeError(config.partitionDurationUs, "partitionDurationUs"),
  );
  if (typeof config.clockDriftEnabled !== "boolean") errors.push("clockDriftEnabled must be a boolean");
  if (typeof config.buggifiedDelayEnabled !== "boolean") errors.push("buggifiedDelayEnabled must be a boolean");
  return errors.filter((e): e is string => e !== null);
}
