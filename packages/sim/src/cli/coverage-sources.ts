/**
 * What turning block coverage into line coverage needs, saved next to a run's coverage report
 * (`sources.json`): the generated code of each covered file (the coverage offsets point into it)
 * and its source map with paths relative to the project root. `moonpool merge` reads the shards'
 * copies, so a merge on any checkout of the project converts exactly as the whole run did.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ReportMergeError } from "./errors.ts";
import { writeReportFile } from "./report-files.ts";

/** A source map (version 3) as JSON. */
export interface SourceMapJson {
  readonly version: number;
  readonly sources: readonly string[];
  readonly mappings: string;
  readonly names?: readonly string[];
  readonly sourceRoot?: string;
  readonly sourcesContent?: readonly (string | null)[];
  readonly file?: string;
  readonly [key: string]: unknown;
}

export interface CoverageSource {
  /** The code V8 ran, unchanged (offsets of the coverage count in it). */
  readonly code: string;
  /** Its inline source map, `sources` relative to the project root; null without one. */
  readonly map: SourceMapJson | null;
}

/** By file relative to the project root (`/`-separated), like the block coverage of the report. */
export type CoverageSources = Readonly<Record<string, CoverageSource>>;

export const COVERAGE_SOURCES_FILE = "sources.json";
const KIND = "moonpool-coverage-sources";

const INLINE_MAP = /\/\/[#@] sourceMappingURL=data:application\/json(?:;charset=[\w-]+)?;base64,([A-Za-z0-9+/=]+)\s*$/;

const toPosix = (p: string) => p.split(path.sep).join("/");

/** The last inline source map of `code` (where compilers put it), or null. */
function inlineMap(code: string): SourceMapJson | null {
  const tail = code.slice(code.lastIndexOf("\n//") + 1);
  const match = INLINE_MAP.exec(tail);
  if (match === null) return null;
  try {
    const map = JSON.parse(Buffer.from(match[1]!, "base64").toString("utf8")) as SourceMapJson;
    return Array.isArray(map.sources) && typeof map.mappings === "string" ? map : null;
  } catch {
    return null;
  }
}

/**
 * `code` of the script at `file` (absolute) with its inline map's sources made relative to
 * `rootDir`. Original texts that the map leaves out (null) are read from the checkout at conversion.
 */
export function portableSource(code: string, file: string, rootDir: string): CoverageSource {
  const map = inlineMap(code);
  if (map === null) return { code, map: null };
  const { sourceRoot, sourcesContent, ...rest } = map;
  const sources = map.sources.map((s) => {
    const absolute = s.startsWith("file:") ? fileURLToPath(s) : path.resolve(path.dirname(file), sourceRoot ?? "", s);
    const relative = path.relative(rootDir, absolute);
    return relative.startsWith("..") || path.isAbsolute(relative) ? absolute : toPosix(relative);
  });
  const contents = sourcesContent?.every((c) => typeof c === "string") === true ? { sourcesContent } : {};
  return { code, map: { ...rest, sources, ...contents } };
}

/** The map of `source` for a conversion under `rootDir`: its sources absolute again. */
export function absoluteMap(map: SourceMapJson, rootDir: string): SourceMapJson {
  return { ...map, sources: map.sources.map((s) => path.resolve(rootDir, s)) };
}

export async function writeCoverageSources(dir: string, sources: CoverageSources): Promise<string> {
  const target = path.join(dir, COVERAGE_SOURCES_FILE);
  const files = Object.fromEntries(
    Object.keys(sources)
      .sort()
      .map((k) => [k, sources[k]!]),
  );
  await writeReportFile(target, JSON.stringify({ kind: KIND, files }));
  return target;
}

export async function readCoverageSources(file: string): Promise<CoverageSources> {
  let parsed: { kind?: unknown; files?: unknown };
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ReportMergeError(`${file}: not a readable coverage sources file (${(error as Error).message})`);
  }
  if (parsed.kind !== KIND || typeof parsed.files !== "object" || parsed.files === null)
    throw new ReportMergeError(`${file} is not a moonpool coverage sources file (kind "${KIND}")`);
  return parsed.files as CoverageSources;
}
