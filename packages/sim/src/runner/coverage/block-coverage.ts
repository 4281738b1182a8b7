/**
 * Block coverage of the system under test, in the offsets of the scripts V8 ran: per file, the
 * covered ranges plus the function and block ranges V8 reported. Plain sorted arrays, so a seed's
 * coverage crosses threads and sits in the JSON report, and `unionBlockCoverage` (a set union) gives
 * the same result in any order and grouping: seeds merged in seed order, across workers or shards.
 */
import type { Profiler } from "node:inspector";

export interface FunctionRange {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

export interface FileBlockCoverage {
  /** Covered ranges, sorted and disjoint, flattened: `[start0, end0, start1, end1, ...]`. */
  readonly covered: readonly number[];
  /** Every function V8 reported, sorted by start then end. */
  readonly functions: readonly FunctionRange[];
  /** Every block range (branch) V8 reported, sorted and unique, flattened like `covered`. */
  readonly blocks: readonly number[];
}

/** Coverage by script URL (a `file:` URL), keys sorted. */
export type BlockCoverage = Readonly<Record<string, FileBlockCoverage>>;

export const EMPTY_BLOCK_COVERAGE: BlockCoverage = Object.freeze({});

interface Range {
  readonly start: number;
  readonly end: number;
  readonly count: number;
}

/**
 * The ranges of one script that ran: a position counts as covered when the innermost range V8
 * reported around it has a non-zero count (V8 leaves out the functions that neither ran nor sit in
 * a function that ran, so a position inside no reported range did not run).
 */
export function fileCoverageFromV8(functions: readonly Profiler.FunctionCoverage[]): FileBlockCoverage {
  const ranges: Range[] = [];
  const named: FunctionRange[] = [];
  const blocks: number[] = [];
  for (const fn of functions) {
    fn.ranges.forEach((r, i) => {
      ranges.push({ start: r.startOffset, end: r.endOffset, count: r.count });
      if (i === 0) named.push({ start: r.startOffset, end: r.endOffset, name: fn.functionName });
      else blocks.push(r.startOffset, r.endOffset);
    });
  }
  // Outer ranges first; of two equal ranges the later reported one is the inner one.
  const order = ranges
    .map((_, i) => i)
    .sort((a, b) => ranges[a]!.start - ranges[b]!.start || ranges[b]!.end - ranges[a]!.end || a - b);
  const covered: number[] = [];
  const mark = (from: number, to: number, range: Range) => {
    if (to > from && range.count > 0) appendInterval(covered, from, to);
  };
  const stack: Range[] = [];
  let cursor = 0;
  for (const i of order) {
    const range = ranges[i]!;
    while (stack.length > 0 && stack[stack.length - 1]!.end <= range.start) {
      const top = stack.pop()!;
      mark(cursor, top.end, top);
      cursor = Math.max(cursor, top.end);
    }
    if (stack.length > 0) mark(cursor, range.start, stack[stack.length - 1]!);
    cursor = range.start;
    stack.push(range);
  }
  while (stack.length > 0) {
    const top = stack.pop()!;
    mark(cursor, top.end, top);
    cursor = Math.max(cursor, top.end);
  }
  return { covered, functions: uniqueFunctions(named), blocks: uniquePairs(blocks) };
}

/** Appends [from, to) to a sorted flat interval list whose last interval ends at or before `from`. */
function appendInterval(list: number[], from: number, to: number): void {
  if (list.length > 0 && list[list.length - 1]! >= from) list[list.length - 1] = Math.max(list[list.length - 1]!, to);
  else list.push(from, to);
}

function unionIntervals(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const takeA = j >= b.length || (i < a.length && a[i]! <= b[j]!);
    if (takeA) {
      appendInterval(out, a[i]!, a[i + 1]!);
      i += 2;
    } else {
      appendInterval(out, b[j]!, b[j + 1]!);
      j += 2;
    }
  }
  return out;
}

function uniquePairs(flat: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  pairs.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: number[] = [];
  for (const [s, e] of pairs) {
    if (out.length > 0 && out[out.length - 2] === s && out[out.length - 1] === e) continue;
    out.push(s, e);
  }
  return out;
}

function uniqueFunctions(list: readonly FunctionRange[]): FunctionRange[] {
  const sorted = list
    .slice()
    .sort((x, y) => x.start - y.start || x.end - y.end || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return sorted.filter((f, i) => i === 0 || f.start !== sorted[i - 1]!.start || f.end !== sorted[i - 1]!.end);
}

export function unionFileCoverage(a: FileBlockCoverage, b: FileBlockCoverage): FileBlockCoverage {
  return {
    covered: unionIntervals(a.covered, b.covered),
    functions: uniqueFunctions([...a.functions, ...b.functions]),
    blocks: uniquePairs([...a.blocks, ...b.blocks]),
  };
}

/** The union of two coverages (commutative and associative: any merge order gives the same). */
export function unionBlockCoverage(a: BlockCoverage, b: BlockCoverage): BlockCoverage {
  const urls = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const out: Record<string, FileBlockCoverage> = {};
  for (const url of urls) {
    const x = a[url];
    const y = b[url];
    out[url] = x === undefined ? y! : y === undefined ? x : unionFileCoverage(x, y);
  }
  return out;
}

/** Whether `offset` lies in a covered range (binary search). */
export function isCovered(file: FileBlockCoverage, offset: number): boolean {
  const c = file.covered;
  let lo = 0;
  let hi = c.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (offset < c[2 * mid]!) hi = mid - 1;
    else if (offset >= c[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

export interface BlockCoverageTotals {
  readonly files: number;
  /** Characters of generated code covered: grows exactly when new code is reached (the plateau signal). */
  readonly coveredChars: number;
  /** Function and block ranges whose first position ran, and how many V8 reported. */
  readonly blocksCovered: number;
  readonly blocksTotal: number;
}

export function blockCoverageTotals(coverage: BlockCoverage): BlockCoverageTotals {
  let coveredChars = 0;
  let blocksCovered = 0;
  let blocksTotal = 0;
  const files = Object.values(coverage);
  for (const file of files) {
    for (let i = 0; i < file.covered.length; i += 2) coveredChars += file.covered[i + 1]! - file.covered[i]!;
    for (const f of file.functions) {
      blocksTotal++;
      if (isCovered(file, f.start)) blocksCovered++;
    }
    for (let i = 0; i < file.blocks.length; i += 2) {
      blocksTotal++;
      if (isCovered(file, file.blocks[i]!)) blocksCovered++;
    }
  }
  return { files: files.length, coveredChars, blocksCovered, blocksTotal };
}
