/**
 * The reporters of `moonpool run`, by name (`--reporter`, `reporters` in the config file). Each
 * may print a simulation's section as soon as it has run and may write files once the run is
 * over; `run.ts` only calls them.
 */
import path from "node:path";
import type { SimulationReport } from "../../runner/report.ts";
import { colorEnabled } from "../colors.ts";
import type { ReporterName } from "../define.ts";
import type { CliIO } from "../io.ts";
import type { ReplayCommandContext } from "../replay-command.ts";
import { writeReportFile } from "../report-files.ts";
import { escapeTerminal } from "../terminal-text.ts";
import { writeRunReport, type RunReportFile, type SimulationEntry } from "../run-report.ts";
import type { Shard } from "../shard.ts";
import { writeHtmlReport, type HtmlReplays } from "./html/index.ts";
import { renderJUnit } from "./junit.ts";
import { renderSimulationText } from "./text.ts";

/** What a reporter writing files gets once every simulation has run. */
export interface ReportTarget {
  readonly file: RunReportFile;
  readonly outDir: string;
  readonly shard: Shard | null;
  readonly context: ReplayCommandContext;
  /** How the HTML report replays the failing timelines it draws (in a worker, one per page). */
  readonly replays: HtmlReplays;
}

export interface Reporter {
  /** Whether it writes into the report folder (checked writable before any seed runs). */
  readonly writesFiles: boolean;
  /** Prints the simulation's section when it has run. */
  simulationDone?(report: SimulationReport, entry: SimulationEntry, context: ReplayCommandContext, io: CliIO): void;
  /** Writes its files; returns their paths. */
  finish?(target: ReportTarget): Promise<string[]>;
}

/** `report.json`, or `report.shard-i-of-n.json` for a shard. */
export function reportFileName(shard: Shard | null, extension: string): string {
  return shard === null ? `report.${extension}` : `report.shard-${shard.index}-of-${shard.count}.${extension}`;
}

export const REPORTERS: Readonly<Record<ReporterName, Reporter>> = {
  text: {
    writesFiles: false,
    simulationDone(report, entry, context, io) {
      const colour = colorEnabled(io.stdout, io.env);
      io.stdout.write(escapeTerminal(renderSimulationText(report, entry, context, colour), colour) + "\n");
    },
  },
  json: {
    writesFiles: true,
    async finish({ file, outDir, shard }) {
      const target = path.join(outDir, reportFileName(shard, "json"));
      await writeRunReport(file, target);
      return [target];
    },
  },
  junit: {
    writesFiles: true,
    async finish({ file, outDir, shard, context }) {
      const target = path.join(outDir, reportFileName(shard, "xml").replace(/^report/, "junit"));
      await writeReportFile(target, renderJUnit(file, context));
      return [target];
    },
  },
  html: {
    writesFiles: true,
    // The campaign page, plus a timeline page of the first failing timeline of each property.
    finish: ({ file, outDir, shard, replays }) => writeHtmlReport(file, replays, outDir, reportFileName(shard, "html")),
  },
};
