/**
 * Each network fault family's mechanics on a bare world, under an exact configuration: it fires
 * (with its `sim_fault` event) when enabled, and never when disabled. Data-integrity properties:
 * checksums catch every bit flip, partial I/O never loses, reorders or invents a byte.
 */
import { describe, expect, it } from "vitest";
import { abortError } from "@moonpool/core";
import { RandomStream } from "../src/engine/rng.ts";
import { buggifiedSleepDelay, NETWORK_BASELINE } from "../src/chaos/network-chaos.ts";
import { markConnectionStable, NETWORK_FAULT_KINDS, type NetworkConfig } from "../src/index.ts";
import { sampleLatencyUs, type LatencyDistribution } from "../src/world/network/config.ts";
import { bitFlipCount, flipBits, takeBytes } from "../src/world/network/faults.ts";
import { ProcessClock } from "../src/world/time.ts";
import { World } from "../src/world/world.ts";
import { crc32, frame } from "./fixtures/chaos-echo.ts";
import {
  Actor,
  ALWAYS,
  bernoulli,
  bytesOf,
  CLIENT_IP,
  connectOnce,
  harness,
  ioCode,
  readChunks,
  run,
  SERVER_ADDR,
  SERVER_IP,
  serveOnce,
} from "./fixtures/world-harness.ts";

const K = NETWORK_FAULT_KINDS;

function payload(n: number, salt = 0): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 7 + salt) & 0xff);
}

describe("latency shapes", () => {
  const sim = new RandomStream(5, 1n);
  const draws = (dist: LatencyDistribution, n = 20_000) => Array.from({ length: n }, () => sampleLatencyUs(dist, sim));

  it("uniform stays in [min, max)", () => {
    const xs = draws({ shape: "uniform", rangeUs: [100, 600] });
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...xs)).toBeLessThan(600);
    expect(draws({ shape: "uniform", rangeUs: [7, 7] }, 10)).toEqual(Array(10).fill(7));
  });

  it("exponential is min + mean · Exp(1): never below min, mean close to min + mean, long tail", () => {
    const xs = draws({ shape: "exponential", minUs: 1_000, meanUs: 2_000 });
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(1_000);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean).toBeGreaterThan(2_900);
    expect(mean).toBeLessThan(3_100);
    expect(Math.max(...xs)).toBeGreaterThan(10_000);
  });

  it("bimodal draws the slow range with its probability", () => {
    const xs = draws({ shape: "bimodal", fastUs: [10, 20], slowUs: [1_000, 2_000], slowProbability: 0.1 });
    const slow = xs.filter((x) => x >= 1_000);
    expect(xs.every((x) => (x >= 10 && x < 20) || (x >= 1_000 && x < 2_000))).toBe(true);
    expect(slow.length / xs.length).toBeGreaterThan(0.08);
    expect(slow.length / xs.length).toBeLessThan(0.12);
  });

  it("a write-latency shape from the configuration decides delivery time", async () => {
    const h = harness(3, {
      latency: { ...NETWORK_BASELINE.latency, write: { shape: "uniform", rangeUs: [5_000, 5_001] } },
    });
    let sentAt = 0;
    const srv = serveOnce(h, async (conn) => {
      await conn.read();
      return h.world.engine.nowUs - sentAt;
    });
    const cli = connectOnce(h, async (conn) => {
      sentAt = h.world.engine.nowUs;
      await conn.write(payload(3));
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    expect(srv.value).toBe(5_000);
  });
});

describe("per-pair latency", () => {
  it("draws one extra latency per ordered IP pair, added to every delivery on it; off at [0, 0]", async () => {
    async function delays(pairLatencyUs: readonly [number, number], seed: number): Promise<number[]> {
      const fixedWrite: LatencyDistribution = { shape: "uniform", rangeUs: [100, 100] };
      const h = harness(seed, { latency: { ...NETWORK_BASELINE.latency, write: fixedWrite }, pairLatencyUs });
      const arrivals: number[] = [];
      const srv = serveOnce(h, async (conn) => {
        for (let c = await conn.read(); c !== null; c = await conn.read()) arrivals.push(h.world.engine.nowUs);
      });
      const sent: number[] = [];
      const cli = connectOnce(h, async (conn) => {
        await h.client.time.sleep(20); // the server's read waits: arrival times are exact
        for (let i = 0; i < 5; i++) {
          sent.push(h.world.engine.nowUs);
          await conn.write(payload(1));
          await h.client.time.sleep(10);
        }
        await conn.close();
      });
      expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
      return arrivals.map((t, i) => t - sent[i]!);
    }
    const off = await delays([0, 0], 1);
    expect(off).toEqual([100, 100, 100, 100, 100]);
    const seenExtras = new Set<number>();
    for (const seed of [1, 2, 3]) {
      const d = await delays([0, 50_000], seed);
      expect(new Set(d).size).toBe(1); // the same extra for every chunk of the pair
      seenExtras.add(d[0]! - 100);
    }
    expect(seenExtras.size).toBe(3); // and a fresh draw per seed
  });
});

describe("connect failure", () => {
  async function connectOutcome(overrides: Partial<NetworkConfig>, seed = 1) {
    const h = harness(seed, overrides);
    new Actor(async () => {
      const listener = await h.server.network.bind(SERVER_ADDR);
      for (;;) await listener.accept();
    });
    const cli = new Actor(async () => {
      await h.client.time.sleep(1);
      return await h.client.network.connect(SERVER_ADDR);
    });
    const stop = await run(h.world, () => cli.done, 60_000_000);
    return { h, cli, stop };
  }

  it("alwaysFail: the connect is refused (ECONNREFUSED) with a connect_refused event naming both IPs", async () => {
    const { h, cli } = await connectOutcome({ connectFailureMode: "alwaysFail" });
    expect(ioCode(cli.error)).toBe("ECONNREFUSED");
    expect((cli.error as Error).message).toContain("simulated connect failure");
    const [event] = h.faults(K.connectRefused);
    expect(event!.source).toBe("sim");
    expect(event!.fields).toMatchObject({ from: CLIENT_IP, to: SERVER_IP, addr: SERVER_ADDR });
  });

  it("probabilistic: with p = 1 and no connect timeout the connect hangs (connect_hang) until shutdown rejects it: never orphaned", async () => {
    const { h, cli, stop } = await connectOutcome({
      connectFailureMode: "probabilistic",
      connectFailureProbability: 1,
      connectTimeoutUs: 0,
    });
    expect(cli.done).toBe(false);
    expect(stop).toBe("idle");
    expect(h.faults(K.connectHang)).toHaveLength(1);
    expect(h.clientInc.waitingOn()).toEqual([`connect to ${SERVER_ADDR}`]);
    h.clientInc.beginShutdown(abortError());
    expect(await run(h.world, () => cli.done)).toBe("done");
    expect((cli.error as Error).name).toBe("AbortError");
  });

  it("probabilistic: with p = 0 the failing connect is refused", async () => {
    const { h, cli } = await connectOutcome({ connectFailureMode: "probabilistic", connectFailureProbability: 0 });
    expect(ioCode(cli.error)).toBe("ECONNREFUSED");
    expect(h.faults(K.connectRefused)).toHaveLength(1);
  });

  it("disabled: connects succeed even with a gate that always fires", async () => {
    const { h, cli } = await connectOutcome({ connectFailureMode: "disabled", connectFailureProbability: 1 });
    expect(cli.error).toBeUndefined();
    expect(h.faults()).toHaveLength(0);
  });
});

describe("partial writes and reads", () => {
  it("partial writes split a write into several deliveries (partial_write) and keep every byte in order", async () => {
    const h = harness(4, { partialWriteMaxBytes: 10 });
    const sent = [payload(100, 1), payload(37, 2), payload(1, 3), payload(300, 4)];
    const srv = serveOnce(h, readChunks);
    const cli = connectOnce(h, async (conn) => {
      await h.client.time.sleep(20); // the server reads as pieces arrive
      for (const p of sent) await conn.write(p);
      await conn.close();
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    expect(bytesOf(srv.value!)).toEqual(sent.flatMap((p) => Array.from(p)));
    const events = h.faults(K.partialWrite);
    expect(events.length).toBeGreaterThan(3);
    for (const e of events) {
      expect(e.num("sentBytes")).toBeGreaterThanOrEqual(1);
      expect(e.num("sentBytes")).toBeLessThanOrEqual(10);
      expect(e.fields).toMatchObject({ from: CLIENT_IP, to: SERVER_IP });
    }
    expect(srv.value!.length).toBeGreaterThan(sent.length); // the reader saw the pieces
  });

  it("partial reads return 1 ..= max bytes, never zero before end of stream, all bytes in order", async () => {
    const h = harness(6, { partialReadMaxBytes: 7 });
    const sent = payload(1000, 9);
    const srv = serveOnce(h, readChunks);
    const cli = connectOnce(h, async (conn) => {
      await conn.write(sent);
      await conn.close();
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    const chunks = srv.value!;
    expect(chunks.every((c) => c.length >= 1 && c.length <= 7)).toBe(true);
    expect(bytesOf(chunks)).toEqual(Array.from(sent));
    const events = h.faults(K.partialRead);
    expect(events.length).toBeGreaterThan(100);
    expect(events[0]!.fields).toMatchObject({
      from: CLIENT_IP,
      to: SERVER_IP,
      remainingBytes: 1000 - events[0]!.num("readBytes")!,
    });
  });

  it("takeBytes splits buffered chunks without losing or reordering a byte", () => {
    const chunks = [Uint8Array.of(1, 2, 3), Uint8Array.of(4), Uint8Array.of(5, 6, 7, 8)];
    expect(Array.from(takeBytes(chunks, 2))).toEqual([1, 2]);
    expect(Array.from(takeBytes(chunks, 3))).toEqual([3, 4, 5]);
    expect(chunks.map((c) => Array.from(c))).toEqual([[6, 7, 8]]);
  });

  it("disabled (max 0): one write arrives as one read, no partial events, even with the gate firing", async () => {
    const h = harness(6, { partialReadMaxBytes: 0, partialWriteMaxBytes: 0 });
    const srv = serveOnce(h, readChunks);
    const cli = connectOnce(h, async (conn) => {
      await conn.write(payload(1000));
      await conn.close();
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    expect(srv.value!.map((c) => c.length)).toEqual([1000]);
    expect(h.faults()).toHaveLength(0);
  });
});

describe("bit flips", () => {
  it("the flip count is a clamped power law", () => {
    const sim = new RandomStream(1, 2n);
    const counts = Array.from({ length: 10_000 }, () => bitFlipCount(sim, 1, 32));
    const share = (n: number) => counts.filter((c) => c === n).length / counts.length;
    expect(share(1)).toBeGreaterThan(0.45);
    expect(share(2)).toBeGreaterThan(0.2);
    expect(share(2)).toBeLessThan(share(1));
    expect(share(3)).toBeLessThan(share(2));
    expect(Math.max(...counts)).toBeLessThanOrEqual(32);
    const clamped = Array.from({ length: 1000 }, () => bitFlipCount(sim, 3, 4));
    expect(clamped.every((c) => c === 3 || c === 4)).toBe(true);
  });

  it("flips exactly the requested number of distinct bits", () => {
    const sim = new RandomStream(2, 2n);
    for (const count of [1, 5, 32, 100]) {
      const data = new Uint8Array(4);
      const flipped = flipBits(data, count, sim);
      const ones = Array.from(data).reduce((n, b) => n + b.toString(2).replaceAll("0", "").length, 0);
      expect(flipped).toBe(Math.min(count, 32));
      expect(ones).toBe(flipped);
    }
  });

  it("an echo with checksums detects every bit flip, and the Hamming distance equals the recorded flips", async () => {
    const h = harness(8, { bitFlipProbability: 0.3 }, bernoulli);
    const messages = Array.from({ length: 200 }, (_, i) => frame(payload(32 + (i % 50), i)));
    const srv = serveOnce(h, async (conn) => {
      // Deliveries may coalesce in one read: split the byte stream by the known message lengths.
      const stream = bytesOf(await readChunks(conn));
      let at = 0;
      return messages.map((m) => Uint8Array.from(stream.slice(at, (at += m.length))));
    });
    const cli = connectOnce(h, async (conn) => {
      for (const m of messages) {
        await conn.write(m);
        await h.client.time.sleep(1); // one message per chunk
      }
      await conn.close();
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    const received = srv.value!;
    let corrupted = 0;
    let hamming = 0;
    received.forEach((r, i) => {
      const body = r.subarray(8);
      const sentCrc = new DataView(r.buffer, r.byteOffset).getUint32(4, true);
      const distance = Array.from(r).reduce(
        (n, b, j) => n + (b ^ messages[i]![j]!).toString(2).replaceAll("0", "").length,
        0,
      );
      if (distance > 0) corrupted++;
      hamming += distance;
      // The checksum fails exactly when something changed (a flip may hit the header or the body).
      expect(
        crc32(body) !== sentCrc || new DataView(r.buffer, r.byteOffset).getUint32(0, true) !== messages[i]!.length - 8,
      ).toBe(distance > 0);
    });
    const events = h.faults(K.bitFlip);
    expect(events.length).toBeGreaterThan(30);
    expect(corrupted).toBe(events.length);
    expect(hamming).toBe(events.reduce((n, e) => n + e.num("flipCount")!, 0));
    expect(events[0]!.fields).toMatchObject({ from: CLIENT_IP, to: SERVER_IP });
  });

  it("respects the cooldown between flips", async () => {
    const h = harness(9, { bitFlipProbability: 1, bitFlipCooldownUs: 50_000 });
    const srv = serveOnce(h, readChunks);
    const cli = connectOnce(h, async (conn) => {
      for (let i = 0; i < 100; i++) {
        await conn.write(payload(8));
        await h.client.time.sleep(5);
      }
      await conn.close();
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    const times = h.faults(K.bitFlip).map((e) => e.timeMs);
    expect(times.length).toBeGreaterThanOrEqual(9);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(50);
  });

  it("disabled: no flips and identical bytes", async () => {
    const h = harness(8, { bitFlipProbability: 0 });
    const sent = payload(5000);
    const srv = serveOnce(h, readChunks);
    const cli = connectOnce(h, async (conn) => {
      await conn.write(sent);
      await conn.close();
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    expect(bytesOf(srv.value!)).toEqual(Array.from(sent));
    expect(h.faults()).toHaveLength(0);
  });
});

describe("random close", () => {
  it("explicit (RST): the polling call and the peer both see ECONNRESET; random_close explicit=true", async () => {
    const h = harness(1, { randomCloseProbability: 1, randomCloseExplicitRatio: 1 });
    const srv = serveOnce(h, async (conn) => {
      await h.server.time.sleep(40); // the client's write is the first call on the connection
      return conn.read().catch(ioCode);
    });
    const cli = connectOnce(h, async (conn) => {
      await h.client.time.sleep(20);
      return conn.write(payload(4)).catch((e: Error) => e.message);
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    expect(cli.value).toContain("ECONNRESET");
    expect(cli.value).toContain("explicit");
    expect(srv.value).toBe("ECONNRESET");
    const [event] = h.faults(K.randomClose);
    expect(event!.fields).toMatchObject({
      explicit: true,
      from: CLIENT_IP,
      to: SERVER_IP,
      localSendClosed: false,
      peerRecvClosed: false,
    });
  });

  it("silent: the peer reads end of stream and/or our later writes fail with EPIPE, as the event says", async () => {
    const outcomes = new Set<string>();
    for (let seed = 1; seed <= 30 && outcomes.size < 3; seed++) {
      // One random close per seed (long cooldown), on the client's first write.
      const h = harness(seed, {
        randomCloseProbability: 1,
        randomCloseExplicitRatio: 0,
        randomCloseCooldownUs: 10_000_000,
      });
      const srv = serveOnce(h, async (conn) => {
        await h.server.time.sleep(40);
        return conn.read();
      });
      const cli = connectOnce(h, async (conn) => {
        await h.client.time.sleep(20);
        await conn.write(payload(4)); // the random close happens on this call, silently
        await h.client.time.sleep(20);
        return conn.write(payload(4)).then(
          () => "ok",
          (e: unknown) => ioCode(e),
        );
      });
      await run(
        h.world,
        () => cli.done && (srv.done || h.faults(K.randomClose)[0]?.bool("peerRecvClosed") === false),
        10_000_000,
      );
      const event = h.faults(K.randomClose)[0]!;
      const peerRecvClosed = event.bool("peerRecvClosed")!;
      const localSendClosed = event.bool("localSendClosed")!;
      expect(event.fields).toMatchObject({ explicit: false, from: CLIENT_IP });
      expect(peerRecvClosed || localSendClosed).toBe(true);
      // The peer sees end of stream (null) exactly when its receiving side was closed; the
      // bytes of the closing write never arrive either way.
      if (peerRecvClosed) expect(srv.value).toBeNull();
      else expect(srv.done).toBe(false);
      expect(cli.value).toBe(localSendClosed ? "EPIPE" : "ok");
      outcomes.add(`${peerRecvClosed}/${localSendClosed}`);
    }
    expect(outcomes).toEqual(new Set(["true/false", "false/true", "true/true"]));
  });

  it("respects the global cooldown, and is off at probability 0", async () => {
    const h = harness(2, { randomCloseProbability: 1, randomCloseExplicitRatio: 1, randomCloseCooldownUs: 1_000_000 });
    new Actor(async () => {
      const listener = await h.server.network.bind(SERVER_ADDR);
      for (;;) {
        const conn = await listener.accept();
        void conn.read().catch(() => undefined);
      }
    });
    const cli = new Actor(async () => {
      await h.client.time.sleep(1);
      for (let i = 0; i < 60; i++) {
        const conn = await h.client.network.connect(SERVER_ADDR);
        await conn.write(payload(1)).catch(() => undefined);
        await h.client.time.sleep(50);
      }
    });
    expect(await run(h.world, () => cli.done)).toBe("done");
    const times = h.faults(K.randomClose).map((e) => e.timeMs);
    expect(times.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1000);

    const off = harness(2, { randomCloseProbability: 0, randomCloseExplicitRatio: 1 });
    const srv = serveOnce(off, readChunks);
    const c2 = connectOnce(off, async (conn) => {
      for (let i = 0; i < 50; i++) await conn.write(payload(3));
      await conn.close();
    });
    expect(await run(off.world, () => srv.done && c2.done)).toBe("done");
    expect(off.faults()).toHaveLength(0);
  });
});

describe("clogging", () => {
  it("a write clog holds the write and its bytes for the clog duration (clog side=write)", async () => {
    const fixedWrite: LatencyDistribution = { shape: "uniform", rangeUs: [100, 100] };
    const h = harness(1, {
      latency: { ...NETWORK_BASELINE.latency, write: fixedWrite },
      clogProbability: 1,
      clogDurationUs: [50_000, 50_000],
    });
    let sentAt = 0;
    const srv = serveOnce(h, async (conn) => {
      await conn.read();
      return h.world.engine.nowUs - sentAt;
    });
    const cli = connectOnce(h, async (conn) => {
      await h.client.time.sleep(20); // the server's read waits: the arrival time is exact
      sentAt = h.world.engine.nowUs;
      await conn.write(payload(2));
      return h.world.engine.nowUs - sentAt;
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    expect(cli.value).toBe(50_000); // the write resolved when the clog cleared
    expect(srv.value).toBe(50_100); // delivery after the clog, plus the write latency
    const events = h.faults(K.clog);
    expect(
      events.some((e) => e.str("side") === "write" && e.str("from") === CLIENT_IP && e.num("durationMs") === 50),
    ).toBe(true);
  });

  it("a read clog holds a read although bytes are buffered (clog side=read)", async () => {
    const h = harness(1, { clogProbability: 1, clogDurationUs: [80_000, 80_000] });
    let readStart = 0;
    const srv = serveOnce(h, async (conn) => {
      await h.server.time.sleep(30); // the byte is buffered before we read
      readStart = h.world.engine.nowUs;
      const got = await conn.read();
      return { waitedUs: h.world.engine.nowUs - readStart, got: got === null ? null : Array.from(got) };
    });
    const cli = connectOnce(h, async (conn) => conn.write(Uint8Array.of(42)));
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    expect(srv.value!.got).toEqual([42]);
    expect(srv.value!.waitedUs).toBe(80_000);
    expect(h.faults(K.clog).some((e) => e.str("side") === "read" && e.str("to") === SERVER_IP)).toBe(true);
  });

  it("off at probability 0", async () => {
    const h = harness(1, { clogProbability: 0, clogDurationUs: [80_000, 80_000] });
    const srv = serveOnce(h, readChunks);
    const cli = connectOnce(h, async (conn) => {
      for (let i = 0; i < 20; i++) await conn.write(payload(3));
      await conn.close();
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    expect(h.world.engine.nowUs).toBeLessThan(30_000);
    expect(h.faults()).toHaveLength(0);
  });
});

describe("stable connections", () => {
  it("are exempt from clogs, random close, bit flips and partial I/O", async () => {
    const everything: Partial<NetworkConfig> = {
      clogProbability: 1,
      clogDurationUs: [10_000, 10_000],
      randomCloseProbability: 1,
      bitFlipProbability: 1,
      partialReadMaxBytes: 3,
      partialWriteMaxBytes: 3,
    };
    const h = harness(1, everything);
    const sent = payload(500);
    const srv = serveOnce(h, readChunks);
    const cli = connectOnce(h, async (conn) => {
      markConnectionStable(conn);
      await conn.write(sent);
      await conn.close();
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    expect(bytesOf(srv.value!)).toEqual(Array.from(sent));
    expect(h.faults()).toHaveLength(0);
    expect(() => markConnectionStable({} as never)).toThrow(/simulated network/);
  });
});

describe("clock drift", () => {
  it("timer() runs ahead of now() by at most the drift bound, never backwards; one clock_drift event", async () => {
    const world = new World({ seed: 3 });
    const clock = new ProcessClock("10.0.1.7");
    clock.driftMaxUs = 100_000;
    const readings: { now: number; timer: number }[] = [];
    for (let i = 0; i < 200; i++) {
      world.engine.nowUs += 1_000;
      readings.push({ now: world.nowMs, timer: clock.read(world) });
    }
    expect(readings.every((r) => r.timer >= r.now && r.timer <= r.now + 100)).toBe(true);
    expect(readings.some((r) => r.timer - r.now > 50)).toBe(true);
    for (let i = 1; i < readings.length; i++) expect(readings[i]!.timer).toBeGreaterThanOrEqual(readings[i - 1]!.timer);
    const events = world.trace.snapshot("sim_fault");
    expect(events.map((e) => e.fields)).toEqual([{ kind: K.clockDrift, ip: "10.0.1.7", driftMaxMs: 100 }]);

    // Recovery mode: no more drift; the lead already gained stays until time catches up.
    world.enterRecoveryMode();
    const lead = clock.read(world) - world.nowMs;
    world.engine.nowUs += 1_000;
    expect(clock.read(world) - world.nowMs).toBeLessThanOrEqual(Math.max(0, lead - 1));
  });

  it("off (driftMaxUs 0): timer() equals now(), no event", () => {
    const world = new World({ seed: 3 });
    const clock = new ProcessClock("10.0.1.7");
    for (let i = 0; i < 50; i++) {
      world.engine.nowUs += 777;
      expect(clock.read(world)).toBe(world.nowMs);
    }
    expect(world.trace.snapshot("sim_fault")).toHaveLength(0);
  });
});

describe("buggified sleep delay", () => {
  it("adds max · u^1000 to the sleeps it picks: mostly nothing, sometimes long; sleep_delayed events", () => {
    const world = new World({ seed: 4 });
    const delay = buggifiedSleepDelay(world, {
      ...NETWORK_BASELINE,
      buggifiedDelayProbability: 1,
      buggifiedDelayMaxUs: 100_000,
    });
    const delays = Array.from({ length: 20_000 }, () => delay("10.0.1.1"));
    expect(Math.max(...delays)).toBeLessThanOrEqual(100_000);
    const nonZero = delays.filter((d) => d > 0);
    expect(nonZero.length / delays.length).toBeGreaterThan(0.005);
    expect(nonZero.length / delays.length).toBeLessThan(0.02);
    expect(nonZero.some((d) => d > 10_000)).toBe(true);
    const events = world.trace.snapshot("sim_fault");
    expect(events).toHaveLength(nonZero.length);
    expect(events[0]!.fields).toMatchObject({ kind: K.sleepDelayed, ip: "10.0.1.1" });
  });

  it("lengthens a real sleep by the drawn delay", async () => {
    const h = harness(4);
    h.world.extraSleepUs = () => 1_234;
    const a = new Actor(async () => h.client.time.sleep(10));
    expect(await run(h.world, () => a.done)).toBe("done");
    expect(h.world.engine.nowUs).toBe(11_234);
  });

  it("off when disabled or at probability 0: no draw, no delay", () => {
    const world = new World({ seed: 4 });
    for (const config of [
      { ...NETWORK_BASELINE, buggifiedDelayEnabled: false },
      { ...NETWORK_BASELINE, buggifiedDelayProbability: 0 },
    ]) {
      const delay = buggifiedSleepDelay(world, config);
      for (let i = 0; i < 1000; i++) expect(delay("10.0.1.1")).toBe(0);
    }
    expect(world.engine.streams.sim.totalCalls).toBe(0);
  });
});

describe("gating", () => {
  it("gated families never fire without an active simulation (NEVER_FIRES), even at probability 1", async () => {
    const h = harness(
      1,
      {
        connectFailureMode: "alwaysFail",
        partialReadMaxBytes: 2,
        partialWriteMaxBytes: 2,
        bitFlipProbability: 1,
        randomCloseProbability: 1,
      },
      { fires: () => false },
    );
    const sent = payload(200);
    const srv = serveOnce(h, readChunks);
    const cli = connectOnce(h, async (conn) => {
      await conn.write(sent);
      await conn.close();
    });
    expect(await run(h.world, () => srv.done && cli.done)).toBe("done");
    expect(bytesOf(srv.value!)).toEqual(Array.from(sent));
    expect(h.faults()).toHaveLength(0);
    expect(ALWAYS.fires("x", 0)).toBe(false);
  });
});
