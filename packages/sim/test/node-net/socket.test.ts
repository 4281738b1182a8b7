/**
 * `node:net` inside a seed: the simulated socket and server against real Node sockets (event
 * order, addresses, byte counts), Node's error codes, idle timeouts on simulated time, crashes.
 */
import net from "node:net";
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type FaultContext, type SimContext } from "../../src/index.ts";

const PORT = 7000;

/** Server: echoes each chunk with a prefix and ends when the client ends. Records its socket's events. */
function echoServer(events: string[], port = PORT): (ctx: SimContext) => Promise<void> {
  return async (ctx) => {
    const server = net.createServer((socket) => {
      events.push(`server connection ${typeof socket.remotePort}`);
      socket.on("data", (chunk) => {
        events.push(`server data ${chunk}`);
        socket.write(`echo ${chunk}`);
      });
      socket.on("end", () => {
        events.push("server end");
        socket.end();
      });
      socket.on("finish", () => events.push("server finish"));
      socket.on("close", (hadError) => events.push(`server close ${hadError}`));
    });
    server.on("listening", () => events.push("server listening"));
    server.listen(port);
    await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve));
  };
}

/** Client: connect, write, wait, end; resolves on 'close'. The same code runs on real sockets. */
function echoClient(connect: () => net.Socket, events: string[], wait: () => Promise<void>): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = connect();
    socket.on("connect", () => events.push("client connect"));
    socket.on("ready", () => events.push("client ready"));
    socket.on("data", (chunk) => events.push(`client data ${chunk}`));
    socket.on("end", () => events.push("client end"));
    socket.on("finish", () => events.push("client finish"));
    socket.on("close", (hadError) => {
      events.push(`client close ${hadError}`);
      resolve(socket);
    });
    socket.write("one");
    void wait().then(() => socket.end("two"));
  });
}

/** Resolves once `done()` holds (polled on real timers: the real-socket half runs outside any seed). */
function until(done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (done() ? resolve() : setTimeout(check, 5));
    check();
  });
}

function simulation(
  server: (ctx: SimContext) => Promise<void>,
  client: (ctx: SimContext) => Promise<void>,
): SimulationBuilder {
  return new SimulationBuilder()
    .processes(1, () => ({ name: "server", run: server }))
    .workload({ name: "client", run: client })
    .networkFaults("none")
    .setBaseSeed(41)
    .setIterations(Number(process.env.SEEDS ?? 1));
}

describe("node:net over the simulated network", () => {
  it("a client and an echo server see the events real sockets see, in the same order", async () => {
    const simEvents: string[] = [];
    let counts: number[] = [];
    let addresses: unknown[] = [];
    const report = await simulation(echoServer(simEvents), async (ctx) => {
      await ctx.time.sleep(10);
      const ip = ctx.topology.processIps[0]!;
      const socket = await echoClient(
        () => net.connect(PORT, ip),
        simEvents,
        () => ctx.time.sleep(50),
      );
      counts = [socket.bytesRead, socket.bytesWritten];
      addresses = [socket.remoteAddress, socket.remotePort, socket.localAddress, socket.remoteFamily];
    }).run();
    expect(report.failedRuns, report.toString()).toBe(0);

    // The same exchange on real sockets on localhost, outside any seed.
    const realEvents: string[] = [];
    const real = net.createServer((socket) => {
      realEvents.push(`server connection ${typeof socket.remotePort}`);
      socket.on("data", (chunk) => {
        realEvents.push(`server data ${chunk}`);
        socket.write(`echo ${chunk}`);
      });
      socket.on("end", () => {
        realEvents.push("server end");
        socket.end();
      });
      socket.on("finish", () => realEvents.push("server finish"));
      socket.on("close", (hadError) => realEvents.push(`server close ${hadError}`));
    });
    await new Promise<void>((resolve) => real.listen(0, "127.0.0.1", resolve));
    const port = (real.address() as net.AddressInfo).port;
    const realSocket = await echoClient(
      () => net.connect(port, "127.0.0.1"),
      realEvents,
      // Not a fixed 50 ms: on a loaded machine the connection can take longer than that, and
      // "one" and "two" would then reach the server as one chunk.
      () => until(() => realEvents.includes("server data one")),
    );
    await new Promise((resolve) => real.close(resolve));
    expect(realSocket).toBeInstanceOf(net.Socket); // outside a seed, net is the real thing

    const client = (events: string[]) => events.filter((e) => e.startsWith("client"));
    // Real sockets on a loaded machine may deliver the two echoes in one chunk: compare the
    // events as a set there; the simulated order is fixed.
    const set = (events: string[]) => [...new Set(events)].sort();
    expect(set(client(simEvents)).filter((e) => !e.startsWith("client data"))).toEqual(
      set(client(realEvents)).filter((e) => !e.startsWith("client data")),
    );
    expect(
      client(realEvents)
        .filter((e) => e.startsWith("client data"))
        .join("")
        .replaceAll("client data ", ""),
    ).toBe("echo oneecho two");
    expect(client(simEvents)).toEqual([
      "client connect",
      "client ready",
      "client data echo one",
      "client finish",
      "client data echo two",
      "client end",
      "client close false",
    ]);
    // Server-side order relative to the client differs with timing; its own order matches.
    const server = (events: string[]) => events.filter((e) => e.startsWith("server") && e !== "server listening");
    const nonData = (events: string[]) => set(events).filter((e) => !e.startsWith("server data"));
    expect(nonData(server(simEvents))).toEqual(nonData(server(realEvents)));
    const data = (events: string[]) => events.filter((e) => e.startsWith("server data")).map((e) => e.slice(12));
    expect(data(realEvents).join("")).toBe("onetwo");
    expect(data(simEvents)).toEqual(["one", "two"]);
    expect(counts).toEqual([realSocket.bytesRead, realSocket.bytesWritten]);
    expect(counts).toEqual([16, 6]);
    expect(addresses).toEqual(["10.0.1.1", PORT, "10.0.0.1", "IPv4"]);
  });

  it("connecting where nobody listens fails with ECONNREFUSED, like Node", async () => {
    let error: NodeJS.ErrnoException | null = null;
    const report = await simulation(
      async () => {},
      async (ctx) => {
        const ip = ctx.topology.processIps[0]!;
        error = await new Promise((resolve) => net.connect(PORT, ip).on("error", resolve));
      },
    ).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(error).toMatchObject({ code: "ECONNREFUSED", syscall: "connect", address: "10.0.1.1", port: PORT });
    expect(error!.message).toMatch(/^connect ECONNREFUSED 10\.0\.1\.1:7000/);
  });

  it("a second listen on a bound port emits EADDRINUSE; server.address() and close() behave like Node", async () => {
    const seen: unknown[] = [];
    const report = await new SimulationBuilder()
      .workload({
        name: "w",
        run: async (ctx) => {
          const first = net.createServer();
          await new Promise<void>((resolve) => first.listen(PORT, resolve));
          seen.push(first.address());
          const second = net.createServer();
          seen.push(
            await new Promise((resolve) =>
              second.listen(PORT).on("error", (e: NodeJS.ErrnoException) => resolve(e.code)),
            ),
          );
          await new Promise((resolve) => first.close(resolve));
          seen.push(first.address());
          seen.push(await new Promise((resolve) => first.close((e) => resolve((e as NodeJS.ErrnoException).code))));
          void ctx;
        },
      })
      .networkFaults("none")
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toEqual([
      { address: "10.0.0.1", family: "IPv4", port: PORT },
      "EADDRINUSE",
      null,
      "ERR_SERVER_NOT_RUNNING",
    ]);
  });

  it("setTimeout emits 'timeout' after the idle time on simulated time, and activity pushes it back", async () => {
    const at: number[] = [];
    const report = await simulation(echoServer([]), async (ctx) => {
      const ip = ctx.topology.processIps[0]!;
      await ctx.time.sleep(10);
      const socket = net.connect(PORT, ip);
      await new Promise((resolve) => socket.on("connect", resolve));
      const start = ctx.time.now();
      socket.setTimeout(500);
      await ctx.time.sleep(300);
      socket.write("keep me"); // activity: the timeout counts from here (and from the echo's arrival)
      await new Promise((resolve) => socket.once("timeout", resolve));
      at.push(ctx.time.now() - start);
      socket.setTimeout(0); // off: no second 'timeout'
      let again = false;
      socket.once("timeout", () => (again = true));
      await ctx.time.sleep(2_000);
      expect(again).toBe(false);
      socket.destroy();
    }).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(at[0]).toBeGreaterThanOrEqual(800);
    expect(at[0]).toBeLessThan(830);
  });

  it("a server crash resets the client's connection: 'error' ECONNRESET then 'close' true", async () => {
    const events: string[] = [];
    const report = await simulation(echoServer([]), async (ctx) => {
      const ip = ctx.topology.processIps[0]!;
      await ctx.time.sleep(10);
      const socket = net.connect(PORT, ip);
      socket.on("error", (e: NodeJS.ErrnoException) => events.push(`error ${e.code} ${e.syscall}`));
      await new Promise((resolve) => {
        socket.on("close", (hadError) => {
          events.push(`close ${hadError}`);
          resolve(undefined);
        });
      });
    })
      .faultFactory(() => ({
        name: "crasher",
        inject: async (ctx: FaultContext) => {
          await ctx.time.sleep(200);
          ctx.reboot(ctx.processIps()[0]!, "crash");
        },
      }))
      .chaosDuration(1_000)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(events).toEqual(["error ECONNRESET read", "close true"]);
  });

  it("writing after end() fails like Node (ERR_STREAM_WRITE_AFTER_END), a path connect fails with a typed error", async () => {
    const codes: unknown[] = [];
    const report = await simulation(echoServer([]), async (ctx) => {
      const ip = ctx.topology.processIps[0]!;
      await ctx.time.sleep(10);
      const socket = net.connect({ port: PORT, host: ip });
      socket.on("error", () => {}); // Node also emits the write-after-end error
      socket.end("bye");
      codes.push(
        await new Promise((resolve) => socket.write("more", (e) => resolve((e as NodeJS.ErrnoException).code))),
      );
      codes.push(
        await new Promise((resolve) =>
          net.connect({ path: "/tmp/x.sock" }).on("error", (e: NodeJS.ErrnoException) => resolve(e.message)),
        ),
      );
      codes.push(
        await new Promise((resolve) =>
          net.connect(PORT, "example.com").on("error", (e: NodeJS.ErrnoException) => resolve(e.code)),
        ),
      );
    }).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(codes[0]).toBe("ERR_STREAM_WRITE_AFTER_END");
    expect(codes[1]).toContain("no Unix sockets");
    expect(codes[2]).toBe("ENOTFOUND");
  });
});
