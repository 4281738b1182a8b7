/**
 * Text renderings of a report: a plain one for logs and files, and a coloured
 * one for terminals. Both show the same facts in the same order.
 */
import pc from "picocolors";
import type { SimulationReport } from "./report.ts";
import { formatFailure } from "./seed-result.ts";
import { describeSeedChaos } from "./seed-chaos.ts";

type Colors = ReturnType<typeof pc.createColors>;

/** `<1s` ⇒ `Nms`, `<60s` ⇒ `x.xxs`, else `Mm SSs`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  return `${minutes}m ${String(seconds).padStart(2, "0")}s`;
}

/** Thousands separators, independent of the machine's locale. */
export function formatCount(n: number): string {
  const [int, frac] = (Math.round(n * 10) / 10).toString().split(".");
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return frac !== undefined ? `${grouped}.${frac}` : grouped;
}

const KIND_ORDER = [
  "always",
  "alwaysOrUnreachable",
  "unreachable",
  "numericAlways",
  "sometimes",
  "reachable",
  "numericSometimes",
  "sometimesAll",
];
const STATUS_ORDER = ["FAIL", "MISS", "PASS"];

function detailStats(d: SimulationReport["assertionDetails"][number]): string {
  const total = d.passCount + d.failCount;
  switch (d.kind) {
    case "sometimes":
    case "reachable":
      return `${formatCount(d.passCount)} / ${formatCount(total)} (${total === 0 ? "0.0" : ((100 * d.passCount) / total).toFixed(1)}%)`;
    case "numericSometimes":
    case "numericAlways":
      return `${formatCount(d.passCount)} pass ${formatCount(d.failCount)} fail watermark: ${d.watermark ?? "-"}`;
    case "sometimesAll":
      return `${formatCount(d.passCount)} calls frontier: ${d.frontier ?? 0}/${d.propositions ?? "?"}`;
    default:
      return `${formatCount(d.passCount)} pass ${formatCount(d.failCount)} fail`;
  }
}

/** How a report is rendered; the CLI passes its own replay command and a bound on seed lines. */
export interface RenderOptions {
  /** The line printed after each failure: what replays it (default: `replayHint`, the builder calls). */
  readonly replayHint?: (seed: number, recipe?: string) => string;
  /** Seed lines listed at most in `--- Seeds ---` (failing seeds always are); default: every seed. */
  readonly seedLinesMax?: number;
}

/** The exact builder calls that replay one seed (the CLI prints its own command instead). */
export function replayHint(seed: number, recipe?: string): string {
  return recipe !== undefined && recipe.length > 0
    ? `replay: builder.replayTimeline(${seed}, "${recipe}").run()`
    : `replay: builder.setDebugSeeds([${seed}]).setIterations(1).run()`;
}

function render(report: SimulationReport, c: Colors, pretty: boolean, options: RenderOptions): string {
  const hint = options.replayHint ?? replayHint;
  const out: string[] = [];
  const header = (title: string) =>
    pretty ? c.bold(`━━━ ${title} ${"━".repeat(Math.max(0, 50 - title.length))}`) : `--- ${title} ---`;
  out.push(pretty ? c.bold(`━━━ Simulation Report ${"━".repeat(34)}`) : "=== Simulation Report ===");
  const rate = report.successRate().toFixed(1);
  const failedText = report.failedRuns > 0 ? c.red(`Failed: ${report.failedRuns}`) : `Failed: ${report.failedRuns}`;
  out.push(`Iterations: ${report.iterations} | Passed: ${report.successfulRuns} | ${failedText} | Rate: ${rate}%`);
  out.push(`Avg Wall Time: ${formatDuration(report.averageWallTimeMs())} | Total: ${formatDuration(report.totalWallTimeMs)}`);
  out.push(`Avg Sim Time: ${formatDuration(report.averageSimulatedTimeMs())}`);
  out.push(`Avg Events: ${formatCount(report.averageEventsProcessed())}`);
  if (report.seedsFailing.length > 0) out.push(c.red(`Faulty seeds: [${report.seedsFailing.join(", ")}]`));

  if (report.failedRuns > 0) {
    out.push(header("Failures"));
    for (const r of report.seeds) {
      if (r.ok) continue;
      out.push(c.red(`seed ${r.seed}:`));
      for (const f of r.failures) out.push(`  ${formatFailure(f)}`);
      out.push(`  chaos: ${describeSeedChaos(r.chaos)}`);
      out.push(`  ${hint(r.seed)}`);
    }
  }

  if (report.exploration !== null) {
    out.push(header("Exploration"));
    const x = report.exploration;
    out.push(`Timelines: ${formatCount(x.timelines)} | Bugs found: ${x.bugsFound} | Replayed draws: ${(100 * x.replayOverhead.replayedFraction).toFixed(1)}%`);
    const kinds = Object.entries(x.discoveriesByKind).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${formatCount(n)}`);
    if (kinds.length > 0) out.push(`Discoveries: ${kinds.join(", ")}`);
    for (const bug of x.bugRecipes) {
      out.push(c.red(`Bug (seed=${bug.seed}, timeline ${bug.foundAtTimeline}): ${bug.property}`));
      out.push(`  recipe: "${bug.recipe}"`);
      out.push(`  ${hint(bug.seed, bug.recipe)}`);
    }
  }

  const details = [...report.assertionDetails].sort(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
  if (details.length > 0) {
    out.push(header(`Assertions (${details.length})`));
    for (const d of details) {
      const status = d.status === "PASS" ? c.green(pretty ? "✓ PASS" : "PASS") : d.status === "FAIL" ? c.red(pretty ? "✗ FAIL" : "FAIL") : c.yellow(pretty ? "○ MISS" : "MISS");
      out.push(`${status}  [${d.kind}]  "${d.message}"  ${detailStats(d)}`);
    }
  }
  if (report.assertionViolations.length > 0) {
    out.push(header("Assertion Violations"));
    for (const v of report.assertionViolations) out.push(c.red(`- ${v}`));
  }
  if (report.coverageViolations.length > 0) {
    out.push(header("Coverage Gaps"));
    for (const v of report.coverageViolations) out.push(c.yellow(`- ${v}`));
  }
  if (report.bucketSummaries.length > 0) {
    const total = report.bucketSummaries.reduce((s, b) => s + b.bucketsDiscovered, 0);
    out.push(header(`Buckets (${total} across ${report.bucketSummaries.length} sites)`));
    for (const b of report.bucketSummaries) out.push(`"${b.message}": ${b.bucketsDiscovered} buckets, ${formatCount(b.totalHits)} hits`);
  }
  const overflow = report.tableOverflow;
  if (overflow.droppedSiteCalls > 0 || overflow.droppedBucketCalls > 0 || overflow.droppedDiscoveries > 0) {
    out.push(
      c.yellow(
        `Assertion tables full (${overflow.maxSites} sites, ${overflow.maxEachBuckets} buckets): ${overflow.droppedSiteCalls} call(s) to untracked sites [${overflow.droppedSiteMessages.join(", ")}], ` +
          `${overflow.droppedBucketCalls} call(s) to untracked buckets [${overflow.droppedBucketMessages.join(", ")}], ${overflow.droppedDiscoveries} discovery(ies) dropped`,
      ),
    );
  }
  const s = report.saturation;
  if (s !== null) {
    const state = s.saturated ? c.green("saturated") : c.yellow("NOT saturated");
    // The gate counts sometimes-style sites (boolean, numeric, sometimes-all) and each-buckets; point at the
    // remaining coverage gaps so "saturated" never reads as "no coverage gap".
    const gaps = report.coverageViolations.length;
    const gapNote = gaps > 0 ? ` · ${gaps} coverage gap${gaps === 1 ? "" : "s"} outside the gate (see Coverage Gaps)` : "";
    out.push(`${state}: ${s.sometimesHit}/${s.sometimesTotal} sometimes/reachable hit · assertion coverage stable for ${s.plateauSeeds} seeds (needs ${s.requiredQuietSeeds})${gapNote}`);
    if (s.stopReason !== undefined) out.push(`Stop rule: ${s.stopReason}`);
  }
  if (report.convergenceTimeout) out.push(c.yellow("UntilCoverageStable hit the iteration cap without saturating."));
  if (report.iterations > 1) {
    out.push(header("Seeds"));
    const seedLinesMax = options.seedLinesMax ?? Number.POSITIVE_INFINITY;
    let hidden = 0;
    report.seeds.forEach((r, i) => {
      if (r.ok && i >= seedLinesMax) {
        hidden++;
        return;
      }
      // The campaign position: a shard's seeds keep the numbers they have in the whole campaign.
      const line = `#${(report.seedIndexes[i] ?? i) + 1} seed=${r.seed} wall=${formatDuration(r.wallTimeMs)} sim=${formatDuration(r.simulatedTimeMs)} events=${formatCount(r.eventsProcessed)} hash=${r.traceHash}`;
      out.push(r.ok ? line : c.red(`${line} FAILED`));
    });
    if (hidden > 0) out.push(`... ${formatCount(hidden)} more passing seeds (every seed is in the JSON report)`);
  }
  return out.join("\n") + "\n";
}

export function formatText(report: SimulationReport, options: RenderOptions = {}): string {
  return render(report, pc.createColors(false), false, options);
}

export function formatPretty(report: SimulationReport, options: RenderOptions = {}): string {
  return render(report, pc.createColors(true), true, options);
}
