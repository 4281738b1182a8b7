/**
 * Request/response round trips per second over real sockets on 127.0.0.1, two ways in one run:
 *
 * - rawRoundTripsPerSec: a client writes one length-prefixed frame (`FramedConnection`) and waits
 *   for the server's reply frame on the same connection: the floor any layer adds to.
 * - transportRoundTripsPerSec: the same exchange as a typed `getReply` over the transport layer
 *   (CRC-32C frames, JSON codec, request ids, peer queues).
 *
 * One client, one request in flight at a time (latency-bound, as a call site awaiting each reply
 * is). Interleaved rounds; medians. `ratio` = transport / raw.
 */
import {
  defineService,
  FramedConnection,
  NullTracer,
  productionProviders,
  Transport,
  type Providers,
} from "../packages/core/src/index.ts";

const ROUND_TRIPS = 3_000;
const ROUNDS = 7;
const REQUEST = { key: "bench", value: 42, note: "x".repeat(32) };

interface Echo {
  echo(request: typeof REQUEST): Promise<typeof REQUEST>;
}
const EchoService = defineService<Echo>("bench-echo", { echo: true });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function rawRound(server: Providers, client: Providers): Promise<number> {
  const listener = await server.network.bind("127.0.0.1:0");
  const serving = (async () => {
    const conn = new FramedConnection(await listener.accept());
    for (let frame = await conn.recv(); frame !== null; frame = await conn.recv()) {
      // Decode and re-encode, like a handler would.
      const request = JSON.parse(new TextDecoder().decode(frame)) as unknown;
      await conn.send(new TextEncoder().encode(JSON.stringify(request)));
    }
    await conn.close();
  })();
  const conn = new FramedConnection(await client.network.connect(listener.localAddr));
  const body = new TextEncoder().encode(JSON.stringify(REQUEST));
  const start = performance.now();
  for (let i = 0; i < ROUND_TRIPS; i++) {
    await conn.send(body);
    const reply = await conn.recv();
    if (reply === null) throw new Error("raw server closed early");
    JSON.parse(new TextDecoder().decode(reply));
  }
  const seconds = (performance.now() - start) / 1000;
  await conn.close();
  await serving;
  await listener.close();
  return ROUND_TRIPS / seconds;
}

async function transportRound(server: Providers, client: Providers): Promise<number> {
  const st = new Transport(server, { peer: { pingIntervalMs: 0 } });
  await st.listen("127.0.0.1:0");
  st.serve(EchoService, { echo: async (request) => request });
  const ct = new Transport(client, { peer: { pingIntervalMs: 0 } });
  const echo = ct.stub(EchoService, st.address!);
  await echo.echo.getReply(REQUEST); // connect outside the timed loop, as the raw round does
  const start = performance.now();
  for (let i = 0; i < ROUND_TRIPS; i++) await echo.echo.getReply(REQUEST);
  const seconds = (performance.now() - start) / 1000;
  await ct.close();
  await st.close();
  return ROUND_TRIPS / seconds;
}

export async function benchTransport(): Promise<Record<string, unknown>> {
  const server = productionProviders({ tracer: new NullTracer() });
  const client = productionProviders({ tracer: new NullTracer() });
  await rawRound(server, client); // warm-up
  await transportRound(server, client);
  const raw: number[] = [];
  const layer: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    raw.push(await rawRound(server, client));
    layer.push(await transportRound(server, client));
  }
  const rawRoundTripsPerSec = Math.round(median(raw));
  const transportRoundTripsPerSec = Math.round(median(layer));
  return {
    roundTripsPerRound: ROUND_TRIPS,
    rounds: ROUNDS,
    rawRoundTripsPerSec,
    transportRoundTripsPerSec,
    ratio: Number((transportRoundTripsPerSec / rawRoundTripsPerSec).toFixed(3)),
  };
}
