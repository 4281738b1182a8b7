/**
 * HEAVY (packs both packages, runs three npm installs and a browser): what a user gets from
 * `npm i -D @moonpool/sim`. The tarballs are installed into three projects outside this repository
 * (copies, no symlinks back into it; their own dependencies come from the npm registry), each made
 * by plain `npm init -y`: unmodified (npm 11 writes `"type": "commonjs"`), with `"type": "module"`,
 * and with a tsconfig.json from `tsc --init`. In each, without touching package.json: `init`, `run`
 * with every reporter (the HTML page opens in Chromium without a console error), `replay`,
 * `shrink --html`, `merge`, `check-history` and a Vitest test through `@moonpool/sim/vitest`, each
 * with its documented exit status. The first project also checks the tarballs' contents, plain
 * Node imports and a strict type check of every entry.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const npx = process.platform === "win32" ? "npx.cmd" : "npx";
/** The repository's own compiler checks the installed projects (installing it again would only cost time). */
const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
const CHROMIUM = process.env.MOONPOOL_CHROMIUM ?? "/usr/bin/chromium";
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) {
  console.warn(
    `pack-install: not opening the HTML pages: no browser at ${CHROMIUM} (apt-get install -y chromium, or set MOONPOOL_CHROMIUM)`,
  );
}

interface Packed {
  readonly name: string;
  readonly filename: string;
  readonly files: readonly { path: string }[];
}

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
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

/** Runs a command to its end; its exit status is the caller's to check. */
function exec(command: string, args: readonly string[], cwd: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== "number") reject(error);
      else resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr });
    });
  });
}

/** Runs a command that must succeed. */
async function run(command: string, args: readonly string[], cwd: string): Promise<Result> {
  const result = await exec(command, args, cwd);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} (in ${cwd}) exited ${result.code}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}

/** `npx moonpool ...`, exit status and output. */
const moonpool = (args: readonly string[], cwd: string): Promise<Result> => exec(npx, ["moonpool", ...args], cwd);

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

/** Fails in about one seed in four: what replay and shrink work on. */
const PLANTED_SIMULATION = `import { SimulationBuilder, assertAlways, defineSimulation, type SimContext } from "@moonpool/sim";

export const planted = defineSimulation({
  name: "planted",
  description: "an always-assertion that fails in about one seed in four",
  build: () =>
    new SimulationBuilder().workloadFactory(() => ({
      name: "writer",
      async run(ctx: SimContext) {
        for (let i = 0; i < 5; i++) await ctx.time.sleep(ctx.random.randomRange(1, 50));
        assertAlways(ctx.random.randomRatio() >= 0.25, "writes are never corrupt");
      },
    })),
});
`;

/** The README's Vitest example (the `.mjs` specifier is how TypeScript names the `.mts` file). */
const VITEST_TEST = `import { test } from "vitest";
import { runSimulationTest } from "@moonpool/sim/vitest";
import { pingPong } from "./simulations/ping-pong.sim.mjs";

test("ping-pong", () => runSimulationTest(pingPong));
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
  include: ["*.mts", "simulations/**/*.mts", "moonpool.config.mts"],
};

const GOOD_HISTORY = `[{:process 0, :type :invoke, :f :write, :value 1}
{:process 1, :type :invoke, :f :read, :value nil}
{:process 0, :type :ok, :f :write, :value 1}
{:process 1, :type :ok, :f :read, :value 0}]`;
const BAD_HISTORY = `[{:process 0, :type :invoke, :f :write, :value 1}
{:process 0, :type :ok, :f :write, :value 1}
{:process 1, :type :invoke, :f :read, :value nil}
{:process 1, :type :ok, :f :read, :value 0}]`;

type Kind = "commonjs" | "module" | "typescript";
const KINDS: readonly Kind[] = ["commonjs", "module", "typescript"];

let work = "";
let tarballs: string[] = [];
let packed: Packed[] = [];
let browser: BrowserContext | null = null;
let browserProfile = "";

/** Opens a report page from disk and returns the console errors and page errors it produced. */
async function browserErrors(file: string): Promise<string[]> {
  if (browser === null) return [];
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector("body[data-ready=true]", { timeout: 0 }); // no limit of its own: the test backstop bounds a hang
  await page.close();
  return errors;
}

beforeAll(async () => {
  work = await realpath(await mkdtemp(path.join(os.tmpdir(), "moonpool-pack-")));
  const workspaces = ["-w", "packages/core", "-w", "packages/sim"];
  const { stdout } = await run(npm, ["pack", "--json", "--pack-destination", work, ...workspaces], repoRoot);
  packed = JSON.parse(stdout.slice(stdout.indexOf("["))) as Packed[];
  tarballs = packed.map((p) => path.join(work, p.filename));
  if (hasBrowser) {
    browserProfile = await mkdtemp(path.join(os.tmpdir(), "moonpool-pack-chromium-"));
    browser = await chromium.launchPersistentContext(browserProfile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
  }
});

afterAll(async () => {
  await browser?.close();
  if (browserProfile !== "") await rm(browserProfile, { recursive: true, force: true });
  if (work !== "") await rm(work, { recursive: true, force: true });
});

it("tarballs hold dist/ with the HTML report's assets, README, LICENSE, no test and no TypeScript source", () => {
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
  const bin = ["bin/moonpool.mjs", "dist/cli/main.js", "dist/cli/program.js", "dist/runner/pool/worker-bootstrap.mjs"];
  // The pages' scripts are bundled from their TypeScript (cli/reporters/html/browser/) at build.
  const assets = ["style.css", "campaign.js", "timeline.js"].map((f) => `dist/cli/reporters/html/assets/${f}`);
  expect(sim).toEqual(expect.arrayContaining(["report.schema.json", ...entries, ...bin, ...assets]));
  expect(sim.filter((p) => p.includes("/html/browser/"))).toEqual([]);
});

describe.each(KINDS)("installed into a %s project made by npm init -y", (kind) => {
  let project = "";
  let manifestBeforeInit = "";

  beforeAll(async () => {
    project = path.join(work, kind);
    await mkdir(project);
    await run(npm, ["init", "-y"], project);
    if (kind === "module") await run(npm, ["pkg", "set", "type=module"], project);
    if (kind === "typescript") await run(process.execPath, [tsc, "--init"], project);
    const { devDependencies } = JSON.parse(await readFile(path.join(repoRoot, "package.json"), "utf8"));
    const extras = [`vitest@${devDependencies.vitest}`, `@types/node@${devDependencies["@types/node"]}`];
    await run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", "-D", ...tarballs, ...extras], project);
    manifestBeforeInit = await readFile(path.join(project, "package.json"), "utf8");
  });

  it("npm init -y wrote the package type under test", () => {
    const { type } = JSON.parse(manifestBeforeInit) as { type?: string };
    // npm 11 writes "commonjs"; older npm writes no type, which Node reads as CommonJS too.
    expect(type ?? "commonjs").toBe(kind === "module" ? "module" : "commonjs");
  });

  it("installs as copies inside the project, not links into the repository", async () => {
    for (const name of ["@moonpool/core", "@moonpool/sim"]) {
      const installed = await realpath(path.join(project, "node_modules", name));
      expect(installed.startsWith(project)).toBe(true);
      expect(installed.startsWith(repoRoot)).toBe(false);
    }
  });

  it("moonpool init writes .mts files and only adds the simulate script to package.json", async () => {
    const init = await moonpool(["init"], project);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("moonpool.config.mts: created");
    expect(init.stdout).toContain("simulations/ping-pong.sim.mts: created");
    const manifest = JSON.parse(await readFile(path.join(project, "package.json"), "utf8"));
    const before = JSON.parse(manifestBeforeInit);
    expect(manifest).toEqual({ ...before, scripts: { ...before.scripts, simulate: "moonpool run" } });
    const again = await moonpool(["init"], project);
    expect(again.stdout).toContain("moonpool.config.mts: exists, kept as it is");
  });

  it("moonpool run with every reporter: text, json, junit and an HTML page that opens without errors", async () => {
    const args = ["run", "ping-pong", "--seeds", "1,2,3", "-j", "1", "-r", "text,json,junit,html", "--out", "all"];
    const result = await moonpool(args, project);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toContain("Simulations: 1 passed, 0 failed");
    const report = JSON.parse(await readFile(path.join(project, "all", "report.json"), "utf8"));
    expect(report.simulations[0].report.seeds.map((s: { seed: number }) => s.seed)).toEqual([1, 2, 3]);
    expect(await readFile(path.join(project, "all", "junit.xml"), "utf8")).toContain(
      '<testcase classname="simulations/ping-pong.sim.mts" name="ping-pong"',
    );
    const html = path.join(project, "all", "report.html");
    expect(await readFile(html, "utf8")).toContain("<style>");
    expect(await browserErrors(html)).toEqual([]);
  });

  it("npm run simulate runs every simulation: init's, a .mjs one and (TypeScript) a typed one", async () => {
    await writeFile(path.join(project, "simulations", "counter.sim.mjs"), MJS_SIMULATION);
    const typed = kind === "typescript";
    if (typed) {
      await writeFile(path.join(project, "typed-use.mts"), TYPED_USE);
      await writeFile(
        path.join(project, "simulations", "typed.sim.mts"),
        `export { typed } from "../typed-use.mjs";\n`,
      );
    }
    // A budget of 24 timelines: the default 1,000 cost 329 s per project on one worker (a fresh
    // realm per timeline) and show nothing more about the install than 24 do.
    const result = await exec(npm, ["run", "simulate", "--", "-j", "1", "--budget", "24"], project);
    expect(result.code, result.stderr).toBe(0);
    const output = result.stdout + result.stderr;
    for (const name of ["ping-pong", "counter-mjs", ...(typed ? ["typed-ts"] : [])])
      expect(output).toMatch(new RegExp(`✓ ${name} `));
    expect(output).toContain(`Simulations: ${typed ? 3 : 2} passed, 0 failed`);
  });

  it.runIf(kind === "typescript")(
    "type-checks: tsc --init's settings, then strict nodenext with skipLibCheck off",
    async () => {
      await writeFile(path.join(project, "ping-pong.test.mts"), VITEST_TEST);
      await run(process.execPath, [tsc, "-p", "tsconfig.json", "--noEmit"], project);
      await writeFile(path.join(project, "tsconfig.strict.json"), `${JSON.stringify(STRICT_TSCONFIG, null, 2)}\n`);
      await run(process.execPath, [tsc, "-p", "tsconfig.strict.json"], project);
    },
  );

  it.runIf(kind === "commonjs")("imports under plain Node, every entry", async () => {
    const script = `const m = await import("@moonpool/sim");
      for (const entry of ["tuning", "internal", "vitest"]) await import("@moonpool/sim/" + entry);
      const core = await import("@moonpool/core");
      console.log(typeof m.SimulationBuilder, typeof m.defineSimulation, typeof core.FramedConnection);`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], project);
    expect(stdout.trim()).toBe("function function function");
  });

  it("a failing seed: run exits 1, replay exits 1, shrink --html exits 0 and its page opens", async () => {
    await writeFile(path.join(project, "simulations", "planted.sim.mts"), PLANTED_SIMULATION);
    const seeds = Array.from({ length: 12 }, (_, i) => i + 1).join(",");
    const failing = await moonpool(
      ["run", "planted", "--seeds", seeds, "-j", "1", "-r", "json", "--out", "f"],
      project,
    );
    expect(failing.code, failing.stderr).toBe(1);
    const report = JSON.parse(await readFile(path.join(project, "f", "report.json"), "utf8"));
    const seed = report.simulations[0].report.seeds.find((s: { ok: boolean }) => !s.ok).seed as number;
    const replay = await moonpool(["replay", "planted", "--seed", String(seed), "--no-trace"], project);
    expect(replay.code, replay.stderr).toBe(1);
    expect(replay.stdout).toContain('assertAlways("writes are never corrupt") failed');
    const shrinkArgs = ["shrink", "planted", "--seed", String(seed), "--max-runs", "20", "--html", "--out", "s"];
    const shrink = await moonpool(shrinkArgs, project);
    expect(shrink.code, shrink.stderr).toBe(0);
    expect(shrink.stdout).toMatch(/^replay: npx moonpool replay planted /m);
    const page = path.join(project, "s", `timeline-planted-${seed}-shrunk.html`);
    expect(existsSync(page)).toBe(true);
    expect(await browserErrors(page)).toEqual([]);
  });

  it("two shards merged: exit 0, the seeds of both", async () => {
    const shard = (i: number) =>
      moonpool(["run", "ping-pong", "--seeds", "1,2,3,4", "-j", "1", "-r", "json", "--shard", `${i}/2`], project);
    for (const i of [1, 2]) expect((await shard(i)).code).toBe(0);
    const shards = [1, 2].map((i) => `moonpool-reports/report.shard-${i}-of-2.json`);
    const merged = await moonpool(["merge", ...shards, "-o", "merged.json"], project);
    expect(merged.code, merged.stderr).toBe(0);
    const report = JSON.parse(await readFile(path.join(project, "merged.json"), "utf8"));
    const mergedSeeds = report.simulations[0].report.seeds.map((s: { seed: number }) => s.seed);
    expect(mergedSeeds).toEqual([1, 2, 3, 4]);
  });

  it("check-history: 0 linearizable, 1 not linearizable, 2 for input that is not a history", async () => {
    await writeFile(path.join(project, "good.edn"), GOOD_HISTORY);
    await writeFile(path.join(project, "bad.edn"), BAD_HISTORY);
    await writeFile(path.join(project, "broken.edn"), "[{:process 0 :type}]");
    const check = (file: string) => moonpool(["check-history", file, "--model", "register", "--initial", "0"], project);
    expect((await check("good.edn")).code).toBe(0);
    expect((await check("bad.edn")).code).toBe(1);
    const broken = await check("broken.edn");
    expect(broken.code).toBe(2);
    expect(broken.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a Vitest test through @moonpool/sim/vitest passes (npx vitest run exits 0)", async () => {
    await writeFile(path.join(project, "ping-pong.test.mts"), VITEST_TEST);
    const result = await exec(npx, ["vitest", "run"], project);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Tests\s+1 passed/);
  });
});
