/**
 * `moonpool init`: what it writes into an empty folder, what it keeps in an existing project, and
 * that the simulation it writes passes under `moonpool run`, the same for the same seed.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { initCommand } from "../../src/cli/commands/init.ts";
import {
  INIT_CONFIG,
  INIT_CONFIG_FILE,
  INIT_SIMULATION,
  INIT_SIMULATION_FILE,
} from "../../src/cli/commands/init-files.ts";
import { UsageError } from "../../src/cli/errors.ts";
import type { CliIO } from "../../src/cli/io.ts";
import { readJson, runCli, tempDir } from "./helpers.ts";

function ioIn(cwd: string): CliIO & { output: () => string } {
  const stdout = new PassThrough();
  let text = "";
  stdout.on("data", (d: Buffer) => (text += d.toString()));
  return { cwd, env: {}, stdout, stderr: new PassThrough(), output: () => text };
}

describe("moonpool init", () => {
  it("in an empty folder: a config, the ping-pong simulation, a package.json with the simulate script", async () => {
    const dir = await tempDir("init-empty");
    const io = ioIn(dir);
    expect(await initCommand(io)).toBe(0);
    expect(await readFile(path.join(dir, INIT_CONFIG_FILE), "utf8")).toBe(INIT_CONFIG);
    expect(await readFile(path.join(dir, INIT_SIMULATION_FILE), "utf8")).toBe(INIT_SIMULATION);
    const manifest = await readJson(path.join(dir, "package.json"));
    expect(manifest).toMatchObject({ private: true, type: "module", scripts: { simulate: "moonpool run" } });
    expect(io.output()).toContain("simulations/ping-pong.sim.mts: created");
  });

  it("in an existing project: keeps every file and script, adds the missing one in the file's indent", async () => {
    const dir = await tempDir("init-existing");
    const manifestText = `{\n    "name": "mine",\n    "scripts": {\n        "test": "vitest"\n    }\n}\n`;
    await writeFile(path.join(dir, "package.json"), manifestText);
    await writeFile(path.join(dir, "moonpool.config.mjs"), "export default {};\n");
    await mkdir(path.join(dir, "simulations"));
    await writeFile(path.join(dir, INIT_SIMULATION_FILE), "// mine\n");
    const io = ioIn(dir);
    expect(await initCommand(io)).toBe(0);
    expect(existsSync(path.join(dir, INIT_CONFIG_FILE))).toBe(false);
    expect(await readFile(path.join(dir, "moonpool.config.mjs"), "utf8")).toBe("export default {};\n");
    expect(await readFile(path.join(dir, INIT_SIMULATION_FILE), "utf8")).toBe("// mine\n");
    const scripts = `"scripts": {\n        "test": "vitest",\n        "simulate": "moonpool run"\n    }`;
    expect(await readFile(path.join(dir, "package.json"), "utf8")).toBe(`{\n    "name": "mine",\n    ${scripts}\n}\n`);
    expect(io.output()).toContain("moonpool.config.mjs: exists, kept as it is");

    await writeFile(path.join(dir, "package.json"), `{ "scripts": { "simulate": "other" } }\n`);
    expect(await initCommand(ioIn(dir))).toBe(0);
    expect(await readFile(path.join(dir, "package.json"), "utf8")).toBe(`{ "scripts": { "simulate": "other" } }\n`);
  });

  it("refuses a package.json that is not JSON with a typed error that says what to fix", async () => {
    const dir = await tempDir("init-broken");
    await writeFile(path.join(dir, "package.json"), "{ broken");
    await expect(initCommand(ioIn(dir))).rejects.toThrow(UsageError);
    await expect(initCommand(ioIn(dir))).rejects.toThrow(/package.json is not valid JSON .*fix it, then run/);
    expect(await readFile(path.join(dir, "package.json"), "utf8")).toBe("{ broken");
  });

  it("its simulation passes under moonpool run: one seed run twice, one trace hash; two seeds, two", async () => {
    // Inside the repository, where `@moonpool/sim` resolves to the sources (the pack test runs the installed package).
    const dir = fileURLToPath(new URL("../../../../.vitest-cache/moonpool-init/", import.meta.url));
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    expect((await runCli(["init"], { cwd: dir })).code).toBe(0);
    const args = ["run", "ping-pong", "--seeds", "11,12", "--workers", "1", "--reporter", "json", "--out"];
    const runs = await Promise.all(["a", "b"].map((out) => runCli([...args, out], { cwd: dir })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const seedsOf = async (out: string): Promise<{ traceHash: string }[]> =>
      (await readJson(path.join(dir, out, "report.json"))).simulations[0].report.seeds;
    const hashes = await Promise.all(["a", "b"].map(async (out) => (await seedsOf(out)).map((s) => s.traceHash)));
    const [first, second] = hashes as [string[], string[]];
    expect(first).toEqual(second);
    expect(first[0]).not.toBe(first[1]);
  });

  it("writes .mts files, which load in a CommonJS package (npm 11's npm init -y) as in an ES module one", async () => {
    const dir = fileURLToPath(new URL("../../../../.vitest-cache/moonpool-init-commonjs/", import.meta.url));
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "package.json"), `{ "name": "cjs", "type": "commonjs" }\n`);
    expect(INIT_CONFIG_FILE).toBe("moonpool.config.mts");
    expect(INIT_SIMULATION_FILE).toMatch(/\.sim\.mts$/);
    expect((await runCli(["init"], { cwd: dir })).code).toBe(0);
    const result = await runCli(["run", "ping-pong", "--seeds", "11", "--workers", "1"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toContain("Simulations: 1 passed, 0 failed");
  });

  it("a .ts config in a CommonJS package fails to load with exit 2 and says to rename it to .mts", async () => {
    const dir = await tempDir("init-commonjs-ts");
    await writeFile(path.join(dir, "package.json"), `{ "name": "cjs", "type": "commonjs" }\n`);
    await writeFile(path.join(dir, "moonpool.config.ts"), "export default {};\n");
    const failed = await runCli(["list"], { cwd: dir });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('rename it to moonpool.config.mts, as moonpool init does, or add "type": "module"');
    // With "type": "module" the same file loads, and the hint is not printed.
    await writeFile(path.join(dir, "package.json"), `{ "name": "esm", "type": "module" }\n`);
    const loaded = await runCli(["list"], { cwd: dir });
    expect(loaded.stderr).not.toContain("failed to load");
    expect(loaded.stderr).not.toContain("rename it");
  });
});
