/**
 * Safety assertions written in a simulation's source but never evaluated by any seed. Assertion
 * sites register on their first call, so a site no seed reached is absent from the report, and a
 * broken workload (zero operations acknowledged) can pass without a single check. The CLI reads
 * the simulation file and the files it imports by relative path, finds every `assertAlways(...)`
 * and `assertAlways<Comparison>(...)` whose message is a string literal, and lists those the
 * campaign never called.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";

export interface DeclaredAssertion {
  readonly message: string;
  /** Relative to the project root, with the 1-based line of the call. */
  readonly where: string;
}

/** The argument holding the message, per always-family function (`assertAlwaysOrUnreachable` may never run). */
const MESSAGE_ARGUMENT: Readonly<Record<string, number>> = {
  assertAlways: 1,
  assertAlwaysGreaterThan: 2,
  assertAlwaysGreaterThanOrEqualTo: 2,
  assertAlwaysLessThan: 2,
  assertAlwaysLessThanOrEqualTo: 2,
};

const CALL = /\b(assertAlways(?:GreaterThan|GreaterThanOrEqualTo|LessThan|LessThanOrEqualTo)?)\s*\(/g;
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
    const args = callArguments(text, open);
    const literal = args?.[MESSAGE_ARGUMENT[match[1]!]!];
    const message = literal === undefined ? null : unquote(literal);
    if (message === null) continue;
    const line = text.slice(0, match.index).split("\n").length;
    found.push({ message, where: where(line) });
  }
  return found;
}

async function resolveImport(from: string, specifier: string): Promise<string | null> {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, base.replace(/\.js$/, ".ts"), `${base}.ts`, path.join(base, "index.ts")];
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

/** Every always-family assertion with a literal message in `file` and the files it imports relatively. */
export async function declaredSafetyAssertions(file: string, rootDir: string): Promise<DeclaredAssertion[]> {
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

/** The declared safety assertions no seed evaluated (`evaluated`: the messages in the report's table). */
export function neverEvaluated(
  declared: readonly DeclaredAssertion[],
  evaluated: ReadonlySet<string>,
): DeclaredAssertion[] {
  return declared
    .filter((a) => !evaluated.has(a.message))
    .sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
}
