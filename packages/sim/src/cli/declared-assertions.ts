/**
 * Assertions written in a simulation's source but never reached by any seed. Assertion sites
 * register on their first call, so a site no seed reached is absent from the report: a broken
 * workload (zero operations acknowledged) can pass without a single check, and a sometimes that
 * never ran looks like no gap at all. The CLI reads the simulation file and the files it imports by
 * relative path, finds every assertion call whose message is a string literal, and lists those the
 * campaign never called. `assertUnreachable` and `assertAlwaysOrUnreachable` are left out: never
 * reaching them is how they pass.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AssertionKind } from "../chaos/assertions/shapes.ts";

export interface DeclaredAssertion {
  readonly message: string;
  /** The kind the report's assertion table gives the site. */
  readonly kind: AssertionKind;
  /** Relative to the project root, with the 1-based line of the call. */
  readonly where: string;
}

const NUMERIC = ["GreaterThan", "GreaterThanOrEqualTo", "LessThan", "LessThanOrEqualTo"] as const;

/** Per assertion function: its kind, and the argument holding the message. */
const SITES: Readonly<Record<string, { readonly kind: AssertionKind; readonly messageArgument: number }>> = {
  assertAlways: { kind: "always", messageArgument: 1 },
  assertSometimes: { kind: "sometimes", messageArgument: 1 },
  assertReachable: { kind: "reachable", messageArgument: 0 },
  assertSometimesAll: { kind: "sometimesAll", messageArgument: 0 },
  assertSometimesEach: { kind: "sometimesEach", messageArgument: 0 },
  ...Object.fromEntries(
    NUMERIC.flatMap((c) => [
      [`assertAlways${c}`, { kind: "numericAlways", messageArgument: 2 }],
      [`assertSometimes${c}`, { kind: "numericSometimes", messageArgument: 2 }],
    ]),
  ),
};

const CALL = /\b(assert[A-Za-z]+)\s*\(/g;
const IMPORT =
  /(?:import|export)\s[^'"]*?from\s*["'](\.{1,2}\/[^"']+)["']|import\s*\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;
const STRING_LITERAL = /^\s*(["'])((?:\\.|(?!\1).)*)\1\s*$/s;

/** Top-level arguments of the call whose `(` is at `open`, or null when the call does not close. */
function callArguments(text: string, open: number): string[] | null {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'" || ch === "`") {
      const quote = ch;
      for (i++; i < text.length && text[i] !== quote; i++) if (text[i] === "\\") i++;
      continue;
    }
    if (ch === "(" || ch === "[" || ch === "{") depth++;
    else if (ch === ")" || ch === "]" || ch === "}") {
      depth--;
      if (depth === 0) {
        args.push(text.slice(start, i));
        return args;
      }
    } else if (ch === "," && depth === 1) {
      args.push(text.slice(start, i));
      start = i + 1;
    }
  }
  return null;
}

function unquote(literal: string): string | null {
  const match = STRING_LITERAL.exec(literal);
  if (match === null) return null;
  try {
    return match[1] === '"' ? (JSON.parse(`"${match[2]}"`) as string) : match[2]!.replace(/\\(.)/g, "$1");
  } catch {
    return null;
  }
}

export function assertionsInSource(text: string, where: (line: number) => string): DeclaredAssertion[] {
  const found: DeclaredAssertion[] = [];
  for (const match of text.matchAll(CALL)) {
    const open = match.index + match[0].length - 1;
    const site = SITES[match[1]!];
    if (site === undefined) continue;
    const literal = callArguments(text, open)?.[site.messageArgument];
    const message = literal === undefined ? null : unquote(literal);
    if (message === null) continue;
    const line = text.slice(0, match.index).split("\n").length;
    found.push({ message, kind: site.kind, where: where(line) });
  }
  return found;
}

async function resolveImport(from: string, specifier: string): Promise<string | null> {
  const base = path.resolve(path.dirname(from), specifier);
  // TypeScript's spellings: `./x.js` names x.ts, `./x.mjs` names x.mts.
  const candidates = [
    base,
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    `${base}.ts`,
    path.join(base, "index.ts"),
  ];
  for (const candidate of candidates) {
    try {
      await readFile(candidate);
      return candidate;
    } catch {
      // try the next form
    }
  }
  return null;
}

/** Every assertion with a literal message in `file` and the files it imports relatively. */
export async function declaredAssertions(file: string, rootDir: string): Promise<DeclaredAssertion[]> {
  const seen = new Set<string>();
  const queue = [file];
  const found: DeclaredAssertion[] = [];
  while (queue.length > 0) {
    const current = queue.shift()!;
    if (seen.has(current) || current.includes(`${path.sep}node_modules${path.sep}`)) continue;
    seen.add(current);
    let text: string;
    try {
      text = await readFile(current, "utf8");
    } catch {
      continue;
    }
    const relative = path.relative(rootDir, current).split(path.sep).join("/");
    found.push(...assertionsInSource(text, (line) => `${relative}:${line}`));
    for (const match of text.matchAll(IMPORT)) {
      const resolved = await resolveImport(current, (match[1] ?? match[2])!);
      if (resolved !== null) queue.push(resolved);
    }
  }
  const byMessage = new Map<string, DeclaredAssertion>();
  for (const a of found) if (!byMessage.has(a.message)) byMessage.set(a.message, a);
  return [...byMessage.values()];
}

/** The declared assertions no seed reached (`evaluated`: the messages in the report's table and buckets). */
export function neverEvaluated(
  declared: readonly DeclaredAssertion[],
  evaluated: ReadonlySet<string>,
): DeclaredAssertion[] {
  return declared
    .filter((a) => !evaluated.has(a.message))
    .sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
}
