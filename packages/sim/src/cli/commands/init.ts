/**
 * `moonpool init`: sets a project up for simulations. Writes `moonpool.config.ts` and one small
 * simulation, and adds a `simulate` script to package.json (creating a package.json in an empty
 * folder). Never overwrites: whatever exists already is kept and reported as skipped.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { colorsFor } from "../colors.ts";
import { CONFIG_FILE_NAMES } from "../config-file.ts";
import { EXIT_PASSED, UsageError } from "../errors.ts";
import type { CliIO } from "../io.ts";
import {
  INIT_CONFIG,
  INIT_CONFIG_FILE,
  INIT_SCRIPT,
  INIT_SCRIPT_NAME,
  INIT_SIMULATION,
  INIT_SIMULATION_FILE,
} from "./init-files.ts";

type Outcome = { readonly file: string; readonly done: string } | { readonly file: string; readonly skipped: string };

async function writeNew(root: string, file: string, content: string): Promise<Outcome> {
  const target = path.join(root, file);
  if (existsSync(target)) return { file, skipped: "exists, kept as it is" };
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, content, { flag: "wx" });
  return { file, done: "created" };
}

async function writeConfig(root: string): Promise<Outcome> {
  const existing = CONFIG_FILE_NAMES.find((name) => existsSync(path.join(root, name)));
  if (existing !== undefined) return { file: existing, skipped: "exists, kept as it is" };
  return writeNew(root, INIT_CONFIG_FILE, INIT_CONFIG);
}

/** Adds the `simulate` script, keeping the file's indentation; a new package.json is an ES module package. */
async function addScript(root: string): Promise<Outcome> {
  const file = path.join(root, "package.json");
  if (!existsSync(file)) {
    const name = path
      .basename(root)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-");
    const manifest = { name, private: true, type: "module", scripts: { [INIT_SCRIPT_NAME]: INIT_SCRIPT } };
    await writeFile(file, `${JSON.stringify(manifest, null, 2)}\n`, { flag: "wx" });
    return { file: "package.json", done: `created with the script "${INIT_SCRIPT_NAME}": "${INIT_SCRIPT}"` };
  }
  const text = await readFile(file, "utf8");
  let manifest: { scripts?: Record<string, string> };
  try {
    manifest = JSON.parse(text) as typeof manifest;
  } catch (error) {
    const reason = (error as Error).message;
    throw new UsageError(`package.json is not valid JSON (${reason}): fix it, then run moonpool init again`);
  }
  if (manifest.scripts?.[INIT_SCRIPT_NAME] !== undefined) {
    return { file: "package.json", skipped: `already has a "${INIT_SCRIPT_NAME}" script, kept` };
  }
  manifest.scripts = { ...manifest.scripts, [INIT_SCRIPT_NAME]: INIT_SCRIPT };
  const indent = /^[ \t]+(?=")/m.exec(text)?.[0] ?? "  ";
  await writeFile(file, `${JSON.stringify(manifest, null, indent)}\n`);
  return { file: "package.json", done: `added the script "${INIT_SCRIPT_NAME}": "${INIT_SCRIPT}"` };
}

export async function initCommand(io: CliIO): Promise<number> {
  const outcomes = [
    await writeConfig(io.cwd),
    await writeNew(io.cwd, INIT_SIMULATION_FILE, INIT_SIMULATION),
    await addScript(io.cwd),
  ];
  const c = colorsFor(io.stdout);
  for (const outcome of outcomes) {
    if ("done" in outcome) io.stdout.write(`${c.green("✓")} ${outcome.file}: ${outcome.done}\n`);
    else io.stdout.write(`${c.dim("-")} ${outcome.file}: ${outcome.skipped}\n`);
  }
  io.stdout.write(`\nNext: npx moonpool run   (or npm run ${INIT_SCRIPT_NAME})\n`);
  return EXIT_PASSED;
}
