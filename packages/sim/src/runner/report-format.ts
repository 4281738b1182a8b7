/**
 * Text renderings of a report: a plain one for logs and files, and a coloured
 * one for terminals. Both show the same facts in the same order.
 */
import pc from "picocolors";
import type { SimulationReport } from "./report.ts";
import { groupFailures, plural } from "./failure-groups.ts";
import { describeSeedChaos } from "./seed-chaos.ts";
import { codeFrame, formatLocation } from "./source-location.ts";

type Colors = ReturnType<typeof pc.createColors>;

/**
 * Colour only where it is supported: a TTY, `NO_COLOR` unset or empty (https://no-color.org),
 * and not a dumb terminal; `FORCE_COLOR` (non-empty, not "0") forces it on, but never over `NO_COLOR`.
 */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true && env.TERM !== "dumb";
}

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
  /** What reruns a list of seeds (default: `rerunHint`, the builder calls). */
  readonly rerunHint?: (seeds: readonly number[]) => string;
  /**
   * Assertions declared in the source that no seed reached (the CLI scans the files): listed in
   * the assertion table as MISS and counted in the sometimes/reachable total, since a site registers
   * only when first called and would otherwise be invisible.
   */
  readonly unreached?: readonly { readonly message: string; readonly kind: string; readonly where: string }[];
}

/** The kinds the saturation gate counts as sometimes/reachable sites. */
const GATED_KINDS: ReadonlySet<string> = new Set(["sometimes", "reachable", "numericSometimes", "sometimesAll"]);

/** The builder calls that rerun exactly these seeds (the CLI prints `moonpool run --seeds` instead). */
export function rerunHint(seeds: readonly number[]): string {
  return `rerun: builder.setDebugSeeds([${seeds.join(", ")}]).setIterations(${seeds.length}).run()`;
}

/** What the Seeds section's fields mean; printed once under its header. */
export const SEED_LEGEND =
  "#N: 0-based position in the campaign (JSON seeds[].index) · sim: simulated time · hash: trace hash " +
  "(equal hashes, identical timelines)";

function average(report: SimulationReport, field: "wallTimeMs" | "simulatedTimeMs" | "eventsProcessed"): number {
  return report.seeds.length === 0 ? 0 : report.seeds.reduce((sum, r) => sum + r[field], 0) / report.seeds.length;
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
  // Averages over every seed: failing seeds are often the longest ones.
  out.push(
    `Avg Wall Time: ${formatDuration(average(report, "wallTimeMs"))} | Total: ${formatDuration(report.totalWallTimeMs)}`,
  );
  out.push(`Avg Sim Time: ${formatDuration(average(report, "simulatedTimeMs"))}`);
  out.push(`Avg Events: ${formatCount(average(report, "eventsProcessed"))}`);
  if (report.isolation?.realm === "in-thread")
    out.push(
      c.yellow(
        "Isolation: shared (in-thread): every seed ran in this thread's realm, so module state a seed leaves reaches the seeds after it (moonpool run gives each seed a fresh realm)",
      ),
    );
  if (report.seedsFailing.length > 0) out.push(c.red(`Failing seeds: ${report.seedsFailing.join(",")}`));

  if (report.failedRuns > 0) {
    const groups = groupFailures(report);
    const rerun = options.rerunHint ?? rerunHint;
    out.push(header(`Failures: ${plural(report.failedRuns, "seed")}, ${plural(groups.length, "distinct failure")}`));
    for (const group of groups) {
      const first = group.timelines[0]!;
      const f = first.failure;
      out.push(c.red(`✗ ${group.title}: ${plural(group.timelines.length, "seed")} of ${report.iterations}`));
      const recipeText = first.recipe.length > 0 ? ` (explored timeline "${first.recipe}")` : "";
      out.push(
        `  earliest: seed ${first.seed} (#${first.index})${recipeText} at ${f.timeMs.toFixed(3)} ms sim, ${formatCount(first.eventsProcessed)} events`,
      );
      out.push(`    ${f.message}${f.actor !== undefined ? ` (actor ${f.actor})` : ""}`);
      if (first.location !== null) {
        out.push(`    at ${formatLocation(first.location)}`);
        for (const line of codeFrame(first.location)) out.push(`      ${line}`);
      }
      const result = report.seeds.find((r) => r.seed === first.seed);
      if (result !== undefined) out.push(`  chaos: ${describeSeedChaos(result.chaos)}`);
      // A failure that hashed differently alone gets no replay command: it would not reproduce.
      if (f.notReplaying !== undefined) for (const line of f.notReplaying.split("\n")) out.push(c.yellow(`  ${line}`));
      else out.push(`  ${hint(first.seed, first.recipe)}`);
      const others = group.timelines.slice(1).map((t) => t.seed);
      if (others.length > 0) out.push(`  ${plural(others.length, "other seed")}: ${rerun(others)}`);
    }
  }

  if (report.campaign !== null) {
    out.push(header("Campaign"));
    const b = report.campaign;
    const arm = (name: string, a: typeof b.arms.fresh) =>
      `${name}: ${formatCount(a.timelines)} timelines, ${formatCount(a.discoveries)} discoveries, ${formatCount(a.failures)} failing${a.firstFailureAtTimeline === null ? "" : ` (first at timeline ${formatCount(a.firstFailureAtTimeline)})`}`;
    out.push(`Budget: ${formatCount(b.timelines)} of ${formatCount(b.budgetTimelines)} timelines, ${b.stopReason}`);
    out.push(arm("Fresh root seeds", b.arms.fresh));
    out.push(arm("Continuations", b.arms.continuation));
    if (b.frontier.recipeLimitRaises > 0) out.push(`Recipe limit raised to ${b.frontier.maxRecipeLen} reseed points`);
  }

  if (report.exploration !== null) {
    out.push(header("Exploration"));
    const x = report.exploration;
    out.push(
      `Timelines: ${formatCount(x.timelines)} | Bugs found: ${x.bugsFound} | Replayed draws: ${(100 * x.replayOverhead.replayedFraction).toFixed(1)}%`,
    );
    const kinds = Object.entries(x.discoveriesByKind)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${formatCount(n)}`);
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
  const unreached = options.unreached ?? [];
  if (details.length + unreached.length > 0) {
    out.push(header(`Assertions (${details.length + unreached.length})`));
    for (const d of details) {
      const status =
        d.status === "PASS"
          ? c.green(pretty ? "✓ PASS" : "PASS")
          : d.status === "FAIL"
            ? c.red(pretty ? "✗ FAIL" : "FAIL")
            : c.yellow(pretty ? "○ MISS" : "MISS");
      out.push(`${status}  [${d.kind}]  "${d.message}"  ${detailStats(d)}`);
    }
    for (const u of unreached)
      out.push(`${c.yellow(pretty ? "○ MISS" : "MISS")}  [${u.kind}]  "${u.message}"  never reached (${u.where})`);
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
    for (const b of report.bucketSummaries)
      out.push(`"${b.message}": ${b.bucketsDiscovered} buckets, ${formatCount(b.totalHits)} hits`);
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
    const gapNote =
      gaps > 0 ? ` · ${gaps} coverage gap${gaps === 1 ? "" : "s"} outside the gate (see Coverage Gaps)` : "";
    const stableWhat =
      s.signals?.includes("codeCoverage") === true ? "code and assertion coverage" : "assertion coverage";
    const unreachedGated = unreached.filter((u) => GATED_KINDS.has(u.kind)).length;
    const neverText = unreachedGated > 0 ? ` (${unreachedGated} never reached)` : "";
    const hitText = `${s.sometimesHit}/${s.sometimesTotal + unreachedGated} sometimes/reachable hit${neverText}`;
    out.push(
      `${state}: ${hitText} · ${stableWhat} stable for ${s.plateauSeeds} seeds (needs ${s.requiredQuietSeeds})${gapNote}`,
    );
    if (s.signals !== undefined) {
      const stopped =
        s.stoppedBy === undefined
          ? ""
          : ` · stopped by the ${s.stoppedBy.join(" and ")} plateau (the last to go quiet)`;
      out.push(`Plateau signals: ${s.signals.join(", ")}${stopped}`);
    }
    if (s.stopReason !== undefined) out.push(`Stop rule: ${s.stopReason}`);
  }
  if (report.convergenceTimeout) out.push(c.yellow("UntilCoverageStable hit the iteration cap without saturating."));
  if (report.iterations > 1) {
    out.push(header("Seeds"));
    out.push(SEED_LEGEND);
    const seedLinesMax = options.seedLinesMax ?? Number.POSITIVE_INFINITY;
    let hidden = 0;
    report.seeds.forEach((r, i) => {
      if (r.ok && i >= seedLinesMax) {
        hidden++;
        return;
      }
      // The campaign position: a shard's seeds keep the numbers they have in the whole campaign.
      const line = `#${report.seedIndexes[i] ?? i} seed=${r.seed} wall=${formatDuration(r.wallTimeMs)} sim=${formatDuration(r.simulatedTimeMs)} events=${formatCount(r.eventsProcessed)} hash=${r.traceHash}`;
      out.push(r.ok ? line : c.red(`${line} FAILED`));
    });
    if (hidden > 0)
      out.push(
        `... ${formatCount(hidden)} more passing ${hidden === 1 ? "seed" : "seeds"} (every seed is in the JSON report)`,
      );
  }
  // What the simulation attached (graphs, tables): the first failing seed's, else the first seed's.
  const attached =
    report.seeds.find((r) => !r.ok && r.attachments !== undefined) ??
    report.seeds.find((r) => r.attachments !== undefined);
  for (const a of attached?.attachments ?? []) {
    out.push(header(`Attachment "${a.name}" (seed ${attached!.seed})`));
    out.push(a.text);
  }
  return out.join("\n") + "\n";
}

export function formatText(report: SimulationReport, options: RenderOptions = {}): string {
  return render(report, pc.createColors(false), false, options);
}

export function formatPretty(report: SimulationReport, options: RenderOptions = {}): string {
  return render(report, pc.createColors(true), true, options);
}
