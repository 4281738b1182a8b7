/**
 * The wire server's reading of Postgres's answers (who holds the backend, when Postgres is gone),
 * and which storage faults reach the database's disk.
 */
import { SimulationBuilder, type SimContext } from "@moonpool/sim";
import { DEFAULT_STORAGE_CONFIG } from "@moonpool/sim/tuning";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresProcess, type PostgresStorageFaults, survivableStorageConfig } from "../../src/postgres.ts";
import { fatalSeverity, lastReadyStatus } from "../../src/world/postgres/wire-server.ts";
import { template } from "./fixtures/power-cut.ts";

function message(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + body.length);
  out[0] = type.charCodeAt(0);
  new DataView(out.buffer).setInt32(1, 4 + body.length);
  out.set(body, 5);
  return out;
}

const ready = (status: string) => message("Z", Uint8Array.of(status.charCodeAt(0)));
const error = (severity: string) =>
  message("E", Buffer.from(`S${severity}\0V${severity}\0C58030\0Mboom\0\0`, "latin1"));
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

describe("the wire server's reading of answers", () => {
  it("finds the last ReadyForQuery status, or none", () => {
    expect(lastReadyStatus(concat(message("C", Buffer.from("INSERT 0 1\0")), ready("T")))).toBe(0x54);
    expect(lastReadyStatus(concat(ready("T"), message("C", Buffer.from("COMMIT\0")), ready("I")))).toBe(0x49);
    expect(lastReadyStatus(message("1", new Uint8Array(0)))).toBeNull();
  });

  it("finds a PANIC or FATAL error, and ignores an ordinary ERROR", () => {
    expect(fatalSeverity(error("PANIC"))).toBe("PANIC");
    expect(fatalSeverity(concat(error("FATAL"), error("PANIC")))).toBe("PANIC");
    expect(fatalSeverity(concat(error("FATAL"), ready("I")))).toBe("FATAL");
    expect(fatalSeverity(concat(error("ERROR"), ready("E")))).toBeNull();
  });
});

function writeFaults(mode: PostgresStorageFaults): Promise<string[]> {
  const lines: string[] = [];
  return new SimulationBuilder()
    .nodeRuntime()
    .networkFaults("none")
    .storageFaults({ ...DEFAULT_STORAGE_CONFIG, phantomWriteProbability: 0.01 })
    .processes(1, () => new PostgresProcess(template, { storageFaults: mode }))
    .workload({
      name: "client",
      run: async (ctx: SimContext) => {
        const host = ctx.topology.ipsInGroup("postgres")[0]!;
        for (let attempt = 0; attempt < 100; attempt++) {
          const client = new pg.Client({ host, port: 5432, user: "postgres", database: "postgres" });
          client.on("error", () => {});
          try {
            await client.connect();
            for (let id = 1; id <= 20; id++) await client.query("INSERT INTO t VALUES ($1)", [id]);
            await client.end();
            return;
          } catch {
            await ctx.time.sleep(50);
          }
        }
      },
    })
    .printTrace("info", (line) => lines.push(line))
    .setBaseSeed(9)
    .setIterations(1)
    .run()
    .then(() => lines.filter((l) => l.includes("storage_write_fault")));
}

describe("storage faults on the database's disk", () => {
  it("survivable (the default) turns off the families that make a disk lie", async () => {
    expect(survivableStorageConfig({ ...DEFAULT_STORAGE_CONFIG, phantomWriteProbability: 0.5 })).toMatchObject({
      phantomWriteProbability: 0,
      readFaultProbability: 0,
      writeFaultProbability: 0,
      misdirectedReadProbability: 0,
      misdirectedWriteProbability: 0,
    });
    expect(await writeFaults("survivable")).toEqual([]);
  });

  it('"all" keeps what the seed\'s storage configuration draws', async () => {
    expect((await writeFaults("all")).length).toBeGreaterThan(0);
  });
});
