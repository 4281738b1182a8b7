/**
 * What a user gets from `npm i -D @moonpool/sim`: both packages are packed (building dist/) and
 * their tarballs installed into a fresh project outside this repository (copies, no symlinks back
 * into it; their own dependencies come from the npm registry). There the package must import under
 * plain Node, type-check under a strict compiler that also checks its declarations, and run
 * `moonpool init`, `moonpool run` and `.mjs` and `.ts` simulations.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const npx = process.platform === "win32" ? "npx.cmd" : "npx";
/** The repository's own compiler checks the installed project (installing it again would only cost time). */
const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");

interface Packed {
  readonly name: string;
  readonly filename: string;
  readonly files: readonly { path: string }[];
}

/** The environment without npm's per-script variables (`npm test` sets them; they would leak into the installs). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1", CI: "true", FORCE_COLOR: "" };
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("npm_") && !/^npm_config_(registry|cache|userconfig)$/i.test(key)) continue;
    if (key === "NODE_OPTIONS" || key.startsWith("VITEST") || key === "TSX_TSCONFIG_PATH") continue;
    env[key] ??= value;
  }
  return env;
}

function run(command: string, args: readonly string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const what = `${command} ${args.join(" ")} (in ${cwd})`;
      if (error) reject(new Error(`${what} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

const MJS_SIMULATION = `import { SimulationBuilder, assertAlways, assertSometimes, defineSimulation }
  from "@moonpool/sim";

export const counter = defineSimulation({
  name: "counter-mjs",
  description: "plain JavaScript",
  build: () =>
    new SimulationBuilder().setIterations(3).workloadFactory(() => ({
      name: "counter",
      async run(ctx) {
        for (let n = 1; n <= 5; n++) {
          await ctx.time.sleep(ctx.random.randomRange(1, 100));
          assertAlways(n > 0, "counts are positive");
          assertSometimes(n === 5, "counted to five");
        }
      },
    })),
});
`;

/** Imports every entry and uses the user API with its types: checked with skipLibCheck off. */
const TYPED_USE = `import { SimulationBuilder, assertAlways, defineSimulation, type SimContext, type SimulationReport }
  from "@moonpool/sim";
import { NETWORK_FAULT_KINDS, STORAGE_FAULT_KINDS } from "@moonpool/sim/tuning";
import { Explorer } from "@moonpool/sim/internal";
import { runSimulationTest } from "@moonpool/sim/vitest";
import { FramedConnection, type Providers } from "@moonpool/core";

export const faultKinds: readonly string[] = [
  ...Object.values(NETWORK_FAULT_KINDS),
  ...Object.values(STORAGE_FAULT_KINDS),
];
export const explorer: typeof Explorer = Explorer;
export const framed: typeof FramedConnection = FramedConnection;
export function serve(io: Providers): Promise<void> {
  return io.time.sleep(1);
}
export const typed = defineSimulation({
  name: "typed-ts",
  description: "TypeScript under a strict compiler",
  build: () =>
    new SimulationBuilder().setIterations(2).workloadFactory(() => ({
      name: "sleeper",
      async run(ctx: SimContext) {
        const start = ctx.time.now();
        await ctx.time.sleep(ctx.random.randomRange(1, 100));
        assertAlways(ctx.time.now() > start, "time moves on");
      },
    })),
});
export const check = (): Promise<SimulationReport> => runSimulationTest(typed);
`;

const STRICT_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    lib: ["ES2022"],
    types: ["node"],
    strict: true,
    skipLibCheck: false,
    noEmit: true,
  },
  include: ["*.ts", "simulations/**/*.ts", "moonpool.config.ts"],
};

// Packing builds both packages and the install may fetch their dependencies: generous limits.
describe("the packed packages, installed into a fresh project", { timeout: 240_000 }, () => {
  let work = "";
  let project = "";
  let packed: Packed[] = [];

  beforeAll(async () => {
    work = await realpath(await mkdtemp(path.join(os.tmpdir(), "moonpool-pack-")));
    const workspaces = ["-w", "packages/core", "-w", "packages/sim"];
    const { stdout } = await run(npm, ["pack", "--json", "--pack-destination", work, ...workspaces], repoRoot);
    packed = JSON.parse(stdout.slice(stdout.indexOf("["))) as Packed[];
    project = path.join(work, "project");
    await mkdir(project);
    const manifest = { name: "user-project", private: true, type: "module" };
    await writeFile(path.join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    const tarballs = packed.map((p) => path.join(work, p.filename));
    const { devDependencies } = JSON.parse(await readFile(path.join(repoRoot, "package.json"), "utf8"));
    const nodeTypes = `@types/node@${devDependencies["@types/node"]}`;
    await run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", "-D", ...tarballs, nodeTypes], project);
  }, 300_000);

  afterAll(async () => {
    if (work !== "") await rm(work, { recursive: true, force: true });
  });

  it("tarballs hold dist/, README, LICENSE (and the report schema), no test and no TypeScript source", () => {
    expect(packed.map((p) => p.name).sort()).toEqual(["@moonpool/core", "@moonpool/sim"]);
    for (const { files } of packed) {
      const paths = files.map((f) => f.path);
      const expected = ["README.md", "LICENSE", "package.json", "dist/index.js", "dist/index.d.ts"];
      expect(paths).toEqual(expect.arrayContaining(expected));
      expect(paths.filter((p) => /(^|\/)test\/|\.test\.|\.spec\./.test(p))).toEqual([]);
      expect(paths.filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts"))).toEqual([]);
    }
    const sim = packed.find((p) => p.name === "@moonpool/sim")!.files.map((f) => f.path);
    const entries = ["dist/api.js", "dist/tuning.d.ts", "dist/internal.d.ts", "dist/vitest.js"];
    const bin = ["bin/moonpool.mjs", "dist/cli/main.js", "dist/runner/pool/worker-bootstrap.mjs"];
    expect(sim).toEqual(expect.arrayContaining(["report.schema.json", ...entries, ...bin]));
  });

  it("installs as copies inside the project, not links into the repository", async () => {
    for (const name of ["@moonpool/core", "@moonpool/sim"]) {
      const installed = await realpath(path.join(project, "node_modules", name));
      expect(installed.startsWith(project)).toBe(true);
      expect(installed.startsWith(repoRoot)).toBe(false);
    }
  });

  it("imports under plain Node, every entry", async () => {
    const script = `const m = await import("@moonpool/sim");
      for (const entry of ["tuning", "internal", "vitest"]) await import("@moonpool/sim/" + entry);
      const core = await import("@moonpool/core");
      console.log(typeof m.SimulationBuilder, typeof m.defineSimulation, typeof core.FramedConnection);`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], project);
    expect(stdout.trim()).toBe("function function function");
  });

  it("type-checks strictly (skipLibCheck off, nodenext) with every entry and moonpool init's files", async () => {
    await run(npx, ["moonpool", "init"], project);
    await writeFile(path.join(project, "typed-use.ts"), TYPED_USE);
    await writeFile(path.join(project, "tsconfig.json"), `${JSON.stringify(STRICT_TSCONFIG, null, 2)}\n`);
    await run(process.execPath, [tsc, "-p", "tsconfig.json"], project);
  });

  it("moonpool init, then moonpool run passes: the init simulation, a typed .ts one and a .mjs one", async () => {
    const init = await run(npx, ["moonpool", "init"], project); // again: keeps every file
    expect(init.stdout).toContain("moonpool.config.ts: exists, kept as it is");
    await writeFile(path.join(project, "simulations", "counter.sim.mjs"), MJS_SIMULATION);
    await writeFile(path.join(project, "simulations", "typed.sim.ts"), `export { typed } from "../typed-use.ts";\n`);
    const { stdout, stderr } = await run(npx, ["moonpool", "run"], project);
    const output = stdout + stderr;
    for (const name of ["ping-pong", "counter-mjs", "typed-ts"]) expect(output).toMatch(new RegExp(`✓ ${name} `));
    expect(output).toContain("Simulations: 3 passed, 0 failed");
    const script = JSON.parse(await readFile(path.join(project, "package.json"), "utf8")).scripts.simulate;
    expect(script).toBe("moonpool run");
  });
});
