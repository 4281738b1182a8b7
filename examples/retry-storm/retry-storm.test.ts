import { describe, expect, it } from "vitest";
import { retryStormSimulation } from "./simulation.ts";

describe("retry-storm example", () => {
  it("naive retries: the metastable failure, goodput still collapsed long after the trigger, with the graph attached", async () => {
    const report = await retryStormSimulation("naive").setBaseSeed(1).setIterations(2).run();
    expect(report.failedRuns).toBe(2);
    for (const seed of report.seeds) {
      expect(seed.failures.map((f) => f.message).join("\n")).toContain(
        'assertAlways("goodput recovers after the trigger") failed',
      );
    }
    const graph = report.seeds[0]!.attachments!.find((a) => a.name === "load")!.text;
    const lines = graph.split("\n");
    expect(lines[0]).toBe("load (naive retries), per 250 ms window");
    expect(graph).toMatch(/^ *\d+ req\/s ┤/m); // y axis with its unit
    expect(graph).toMatch(/└─{64}/); // time axis
    expect(graph).toMatch(/0s +4s +8s {2}\(simulated time\)/);
    expect(graph).toContain("* offered req/s   + goodput req/s   o retries req/s   | trigger starts at");
    // Retries dominate after the trigger: the top row holds retries ("o"), and the trigger columns are marked.
    const plot = lines.slice(1, 11).map((l) => l.slice(l.search(/[┤│]/) + 1));
    expect(plot[0]).toContain("o");
    expect(plot.filter((row) => row.includes("|")).length).toBeGreaterThanOrEqual(5);
    expect(report.toString()).toContain(`--- Attachment "load" (seed ${report.seeds[0]!.seed}) ---`);
  });

  it("budgeted retries with jittered backoff: goodput recovers within the tail in 12 fixed seeds", async () => {
    const report = await retryStormSimulation("budgeted").setBaseSeed(1).setIterations(12).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    expect(status["goodput recovers after the trigger"]).toBe("PASS");
    expect(status["clients retried"]).toBe("PASS");
  });

  it("replays seeds to identical trace hashes; different seeds differ", async () => {
    const a = await retryStormSimulation("budgeted").setBaseSeed(9).setIterations(3).run();
    const b = await retryStormSimulation("budgeted").setBaseSeed(9).setIterations(3).run();
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(3);
  });
});
