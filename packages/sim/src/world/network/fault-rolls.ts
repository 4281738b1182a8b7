/**
 * The network's fault decisions: each roll draws from the seed's `sim` stream, asks the seed's
 * buggify gate where the family is gated, records the fault, and keeps the cooldowns between two
 * faults of one family. Connection ends call these only while `SimNetwork.endFaults` is on.
 */
import { never } from "../../engine/incarnation.ts";
import { EventTag } from "../event-tag.ts";
import { NETWORK_BUGGIFY_FIRE_PROBABILITY, NETWORK_BUGGIFY_IDS, NETWORK_FAULT_KINDS, sampleRangeUs } from "./config.ts";
import type { SimConnection } from "./connection.ts";
import { finishWrite, wakeEnd } from "./events.ts";
import { bitFlipCount, flipBits } from "./faults.ts";
import type { SimNetwork } from "./network.ts";
import { pickPartitionSide } from "./partitions.ts";

/** A silent random close closes the peer's receiving side when its draw is below this. */
export const RANDOM_CLOSE_PEER_RECV_BELOW = 0.66;
/** ... and the local sending side when the same draw is above this (0.33): a third of the time both. */
export const RANDOM_CLOSE_LOCAL_SEND_ABOVE = 0.33;

/** The fault rolls of one network, with the state that spaces faults out in simulated time. */
export class NetworkFaultRolls {
  private lastBitFlipUs = -Infinity;
  private lastRandomCloseUs = -Infinity;
  /** A random partition is in force until then; none is rolled meanwhile. */
  randomPartitionUntilUs = 0;

  constructor(private readonly net: SimNetwork) {}

  /** Whether this connect fails by chaos, and how (records the fault). */
  connectFailure(fromIp: string, toIp: string, addr: string): "refuse" | "hang" | null {
    const mode = this.net.config.connectFailureMode;
    if (
      mode === "disabled" ||
      !this.net.gate.fires(NETWORK_BUGGIFY_IDS.connectFailure, NETWORK_BUGGIFY_FIRE_PROBABILITY)
    )
      return null;
    const hang = mode === "probabilistic" && this.net.sim.ratio() < this.net.config.connectFailureProbability;
    const kind = hang ? NETWORK_FAULT_KINDS.connectHang : NETWORK_FAULT_KINDS.connectRefused;
    if (this.net.world.skipFault(kind)) return null;
    this.net.world.recordFault(kind, {
      from: fromIp,
      to: toIp,
      addr,
    });
    return hang ? "hang" : "refuse";
  }

  /**
   * Random close, rolled on every read and write call of a non-stable end. Explicit: the pair is
   * reset (both ends see ECONNRESET, this call first). Silent: one direction (ours → peer) is
   * closed: the peer reads end of stream, and/or our sending side fails and loses its bytes.
   */
  randomClose(end: SimConnection): "explicit" | "silent" | null {
    const config = this.net.config;
    const p = config.randomCloseProbability;
    if (p <= 0) return null;
    const nowUs = this.net.world.engine.nowUs;
    if (nowUs - this.lastRandomCloseUs < config.randomCloseCooldownUs) return null;
    if (!this.net.gate.fires(NETWORK_BUGGIFY_IDS.randomClose, p)) return null;
    this.lastRandomCloseUs = nowUs;
    const a = this.net.sim.ratio();
    const explicit = this.net.sim.ratio() < config.randomCloseExplicitRatio;
    const peer = end.peer;
    const peerRecvClosed = !explicit && a < RANDOM_CLOSE_PEER_RECV_BELOW && peer !== null;
    const localSendClosed = !explicit && a > RANDOM_CLOSE_LOCAL_SEND_ABOVE;
    // A skipped close keeps its cooldown, so the later rolls of this family stay where they were.
    if (this.net.world.skipFault(NETWORK_FAULT_KINDS.randomClose)) return null;
    this.net.world.recordFault(NETWORK_FAULT_KINDS.randomClose, {
      connectionId: end.connectionId,
      from: end.localIp,
      to: end.peerIp,
      explicit,
      localSendClosed,
      peerRecvClosed,
    });
    if (explicit) {
      this.net.resetPair(end, null);
      return "explicit";
    }
    if (peerRecvClosed) {
      peer!.recvCut = true;
      peer!.eof = true;
      this.net.wakeAsOwner(peer!);
    }
    if (localSendClosed) end.sendCut = true;
    return "silent";
  }

  /** Whether reads of `end` are clogged now (rolling a new clog when none is in force). */
  readClogged(end: SimConnection): boolean {
    return this.clogged(end, "read");
  }

  writeClogged(end: SimConnection): boolean {
    return this.clogged(end, "write");
  }

  private clogged(end: SimConnection, side: "read" | "write"): boolean {
    const nowUs = this.net.world.engine.nowUs;
    if ((side === "read" ? end.readClogUntilUs : end.writeClogUntilUs) > nowUs) return true;
    const p = this.net.config.clogProbability;
    if (p <= 0 || !this.net.sim.bool(p)) return false;
    const durationUs = sampleRangeUs(this.net.config.clogDurationUs, this.net.sim);
    if (this.net.world.skipFault(NETWORK_FAULT_KINDS.clog)) return false;
    if (side === "read") end.readClogUntilUs = nowUs + durationUs;
    else end.writeClogUntilUs = nowUs + durationUs;
    const [from, to] = side === "read" ? [end.peerIp, end.localIp] : [end.localIp, end.peerIp];
    this.net.world.recordFault(NETWORK_FAULT_KINDS.clog, {
      connectionId: end.connectionId,
      from,
      to,
      side,
      durationMs: durationUs / 1000,
    });
    return durationUs > 0;
  }

  /** Wakes `end`'s waiting read at `atUs` (the end of its read clog). */
  wakeAt(end: SimConnection, atUs: number): void {
    this.net.world.engine.scheduleAt(atUs, wakeEnd, end, EventTag.network, end.owner);
  }

  /** A write that resolves when `end`'s write clog ends (the bytes are already queued behind it). */
  waitForWriteClog(end: SimConnection): Promise<void> {
    const op = end.owner.begin<void>(end.scope.taskState, true, "clogged write on", end.localAddr);
    if (op === null) return never();
    this.net.world.engine.scheduleAt(end.writeClogUntilUs, finishWrite, op, EventTag.network, end.owner);
    return op.promise;
  }

  /** Bytes a partial read hands out now (a strict prefix), or 0 for a whole read. */
  partialReadBytes(end: SimConnection): number {
    const maxBytes = this.net.config.partialReadMaxBytes;
    if (
      maxBytes <= 0 ||
      end.inboxBytes < 2 ||
      !this.net.gate.fires(NETWORK_BUGGIFY_IDS.partialRead, NETWORK_BUGGIFY_FIRE_PROBABILITY)
    )
      return 0;
    const readBytes = this.net.sim.rangeInt(1, Math.min(end.inboxBytes - 1, maxBytes) + 1);
    if (this.net.world.skipFault(NETWORK_FAULT_KINDS.partialRead)) return 0;
    this.net.world.recordFault(NETWORK_FAULT_KINDS.partialRead, {
      connectionId: end.connectionId,
      from: end.peerIp,
      to: end.localIp,
      readBytes,
      remainingBytes: end.inboxBytes - readBytes,
    });
    return readBytes;
  }

  /**
   * A skipped partial write's prefix at the instant it would have arrived: the draws of that
   * delivery and of its reader, who would have taken the bytes and read again, without handing
   * anything out (the bytes arrive with the next chunk; a bit flip still lands in them, since
   * `prefix` views that chunk). A skipped fault thus moves no later draw, unless the bytes made
   * the reader do more than read again.
   */
  skippedPrefixArrives(to: SimConnection, prefix: Uint8Array): void {
    const net = this.net;
    const from = to.peer;
    if (to.reset || from === null || !to.owner.alive || !from.owner.alive) return;
    this.rollRandomPartition();
    if (to.held !== null || net.partitions.blocks(from.localIp, to.localIp) || from.sendCut || to.recvCut) return;
    this.maybeFlipBits(to, from, prefix);
    if (!to.waitsForBytes() || !net.endFaults || to.stable) return;
    // The read that takes the prefix rolls a partial read; one that fires is not followed further.
    const maxBytes = net.config.partialReadMaxBytes;
    if (
      maxBytes > 0 &&
      prefix.length >= 2 &&
      net.gate.fires(NETWORK_BUGGIFY_IDS.partialRead, NETWORK_BUGGIFY_FIRE_PROBABILITY)
    ) {
      net.sim.rangeInt(1, Math.min(prefix.length - 1, maxBytes) + 1);
      return;
    }
    // The next read: its random close and clog rolls.
    if (this.randomClose(to) === "explicit") return;
    if (this.readClogged(to)) this.wakeAt(to, to.readClogUntilUs);
  }

  maybeFlipBits(to: SimConnection, from: SimConnection, data: Uint8Array): void {
    const config = this.net.config;
    if (config.bitFlipProbability <= 0 || to.stable || data.length === 0) return;
    const nowUs = this.net.world.engine.nowUs;
    if (nowUs - this.lastBitFlipUs < config.bitFlipCooldownUs) return;
    if (!this.net.gate.fires(NETWORK_BUGGIFY_IDS.bitFlip, config.bitFlipProbability)) return;
    this.lastBitFlipUs = nowUs;
    const count = bitFlipCount(this.net.sim, config.bitFlipMinBits, config.bitFlipMaxBits);
    // A skipped flip still draws its bit positions (on a copy), so the stream stays aligned.
    const skipped = this.net.world.skipFault(NETWORK_FAULT_KINDS.bitFlip);
    const flipCount = flipBits(skipped ? data.slice() : data, count, this.net.sim);
    if (skipped) return;
    this.net.world.recordFault(NETWORK_FAULT_KINDS.bitFlip, {
      connectionId: to.connectionId,
      from: from.localIp,
      to: to.localIp,
      flipCount,
      chunkBytes: data.length,
    });
  }

  /**
   * Random partitions, rolled on every network event (delivery, connect arrival) while none is in
   * force: the IPs of live connections (sorted, so the draw is deterministic) are split by the
   * configured strategy and the two sides cut off from each other in both directions.
   */
  rollRandomPartition(): void {
    const p = this.net.config.partitionProbability;
    if (p <= 0 || this.randomPartitionUntilUs > this.net.world.engine.nowUs || !this.net.sim.bool(p)) return;
    const ips = this.net.connectedIps();
    const side = pickPartitionSide(this.net.config.partitionStrategy, ips, this.net.sim);
    if (side === null) return;
    const durationUs = sampleRangeUs(this.net.config.partitionDurationUs, this.net.sim);
    this.randomPartitionUntilUs = this.net.world.engine.nowUs + durationUs;
    const inside = new Set(side);
    for (const a of side) {
      for (const b of ips) {
        if (inside.has(b)) continue;
        this.net.partitions.cutPair(a, b, durationUs, "random");
        this.net.partitions.cutPair(b, a, durationUs, "random");
      }
    }
  }
}
