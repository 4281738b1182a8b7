/**
 * Enumerates what the running Node offers simulated code: every function (and accessor) on
 * `globalThis` and its namespace objects, and every function exported by a builtin module, each
 * marked wrapped when the escape guard stands in front of it. Used by machine-surface.test.ts.
 */
import { builtinModules, createRequire } from "node:module";
import { isEscapeWrapper } from "../../src/engine/escape-guard.ts";

export interface Entry {
  /** `globalThis.Math.random`, `node:fs.readFileSync`, ... */
  readonly id: string;
  readonly wrapped: boolean;
}

const require = createRequire(import.meta.url);

/** Namespace objects on globalThis whose members are looked at one by one. */
const NAMESPACES = [
  "Math",
  "JSON",
  "Reflect",
  "Atomics",
  "Intl",
  "WebAssembly",
  "process",
  "performance",
  "crypto",
  "navigator",
  "console",
  "Temporal",
  "Temporal.Now",
  "process.report",
  "crypto.subtle",
];

/** Prototype objects whose methods are looked at one by one (locale and zone sensitive ones live here). */
const PROTOTYPES = ["Date", "Number", "BigInt", "String", "Array"];

function membersOf(prefix: string, target: object, out: Entry[]): void {
  for (const key of Object.getOwnPropertyNames(target)) {
    const descriptor = Object.getOwnPropertyDescriptor(target, key)!;
    if (descriptor.get !== undefined) out.push({ id: `${prefix}.${key}`, wrapped: isEscapeWrapper(descriptor.get) });
    else if (typeof descriptor.value === "function")
      out.push({ id: `${prefix}.${key}`, wrapped: isEscapeWrapper(descriptor.value) });
  }
}

function lookup(path: string): object | undefined {
  let value: unknown = globalThis;
  for (const part of path.split(".")) {
    if (value === null || value === undefined) return undefined;
    try {
      value = (value as Record<string, unknown>)[part];
    } catch {
      return undefined; // a guarded getter outside a seed does not throw, but be safe
    }
  }
  return typeof value === "object" || typeof value === "function" ? (value as object) : undefined;
}

/** The builtin modules a program can load without flags (`node:`-only ones included). */
export function builtinModuleNames(): string[] {
  const names = builtinModules
    .filter((name) => !name.startsWith("_"))
    .map((n) => (n.startsWith("node:") ? n : `node:${n}`));
  return [...new Set(names)].sort();
}

export function scanSurface(): Entry[] {
  const out: Entry[] = [];
  membersOf("globalThis", globalThis, out);
  for (const name of NAMESPACES) {
    const target = lookup(name);
    if (target !== undefined) membersOf(`globalThis.${name}`, target, out);
  }
  for (const name of PROTOTYPES) membersOf(`globalThis.${name}.prototype`, lookup(`${name}.prototype`)!, out);
  for (const module of builtinModuleNames()) {
    let exports: Record<string, unknown>;
    try {
      exports = require(module) as Record<string, unknown>;
    } catch {
      continue; // behind a flag in this Node major
    }
    for (const key of Object.keys(exports)) {
      const value = exports[key];
      if (typeof value === "function") out.push({ id: `${module}.${key}`, wrapped: isEscapeWrapper(value) });
    }
  }
  return out;
}
