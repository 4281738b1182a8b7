/**
 * Tier 2: the scale-out recipes' own commands, run on this machine the way their engines run them,
 * merge to the report one unsharded run of the same campaign gives (wall-clock fields aside, as in
 * shard.test.ts).
 *
 * - GitHub Actions: every matrix job's `run` script under `bash -eo pipefail` with the job's and
 *   step's env, `${{ matrix.shard }}`, `${{ github.run_id }}` and `${{ runner.temp }}` substituted
 *   (each job its own RUNNER_TEMP, as each runs on its own machine); the artifacts are emulated by
 *   copying what upload-artifact's path matches into a folder per artifact name, and
 *   download-artifact's pattern and merge-multiple into the merge job's path.
 * - Kubernetes: the Indexed Job's container command with its env, JOB_COMPLETION_INDEX = 0..N-1,
 *   and the reports volume as one local folder shared by every pod and the merge Job.
 */
import { spawn } from "node:child_process";
import { copyFile, mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readJson, tempDir, withoutWallClock } from "./helpers.ts";
import {
  CAMPAIGN_MANIFEST,
  containerRun,
  MERGE_MANIFEST,
  readJobs,
  readWorkflow,
  REPOSITORY,
  stepEnv,
  stepRunning,
  substitute,
  type Contexts,
  type WorkflowJob,
} from "./scale-out-recipes.ts";

interface Exit {
  readonly code: number | null;
  readonly output: string;
}

/** The machine's env without anything an engine sets for sharding: each recipe brings its own. */
function engineEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "" };
  delete env.JOB_COMPLETION_INDEX;
  delete env.MOONPOOL_SHARD_INDEX;
  delete env.CI;
  return { ...env, ...extra };
}

function run(argv: readonly string[], env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: REPOSITORY,
      env: engineEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** GitHub's default `run` shell on Linux. */
const bash = (script: string, env: Record<string, string>) =>
  run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], env);

/** The files a path with `*` in its last segment matches (what upload-artifact's path does here). */
async function matching(pattern: string): Promise<string[]> {
  const dir = path.dirname(pattern);
  const re = new RegExp(`^${path.basename(pattern).split("*").map(escapeRegExp).join(".*")}$`);
  return (await readdir(dir)).filter((f) => re.test(f)).map((f) => path.join(dir, f));
}
const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/** `--shard <x>` removed: the same campaign on one machine. */
const unsharded = (script: string) => {
  const without = script.replace(/ --shard \S+/, "");
  expect(without).not.toBe(script);
  return without;
};

const usesStep = (job: WorkflowJob, action: string) => job.steps.find((s) => s.uses?.startsWith(`${action}@`))!;

describe("the scale-out recipes, run here", () => {
  it("GitHub Actions: the matrix jobs' shards, uploaded, downloaded and merged, equal one unsharded run", async () => {
    const workflow = readWorkflow();
    const shardStep = stepRunning(workflow, "moonpool run");
    const mergeStep = stepRunning(workflow, "moonpool merge");
    const runId = "12087654321"; // a run id of the size GitHub gives today
    const artifacts = await tempDir("gha-artifacts");
    const shards = shardStep.job.strategy!.matrix!.shard!.map(String);

    const contextsFor = (temp: string, shard?: string): Contexts => ({
      "github.run_id": runId,
      "runner.temp": temp,
      ...(shard === undefined ? {} : { "matrix.shard": shard }),
    });
    const shardRun = async (shard: string) => {
      const temp = await tempDir(`gha-shard-${shard}`);
      const contexts = contextsFor(temp, shard);
      const env = { ...stepEnv(shardStep.job, shardStep.step, contexts), RUNNER_TEMP: temp };
      const exit = await bash(substitute(shardStep.step.run!, contexts), env);
      const upload = usesStep(shardStep.job, "actions/upload-artifact");
      const folder = path.join(artifacts, substitute(String(upload.with!.name), contexts));
      await mkdir(folder, { recursive: true });
      const files = await matching(substitute(String(upload.with!.path), contexts));
      for (const file of files) await copyFile(file, path.join(folder, path.basename(file)));
      return { exit, files };
    };
    const wholeTemp = await tempDir("gha-whole");
    const wholeContexts = contextsFor(wholeTemp, "1");
    const [whole, ...parts] = await Promise.all([
      bash(unsharded(substitute(shardStep.step.run!, wholeContexts)), {
        ...stepEnv(shardStep.job, shardStep.step, wholeContexts),
        RUNNER_TEMP: wholeTemp,
      }),
      ...shards.map(shardRun),
    ]);
    expect(whole.code, whole.output).toBe(0);
    for (const part of parts) {
      expect(part.exit.code, part.exit.output).toBe(0);
      expect(part.files).toHaveLength(1);
    }

    const mergeTemp = await tempDir("gha-merge");
    const contexts = contextsFor(mergeTemp);
    const download = usesStep(mergeStep.job, "actions/download-artifact");
    expect(download.with!["merge-multiple"]).toBe(true);
    const into = substitute(String(download.with!.path), contexts);
    await mkdir(into, { recursive: true });
    const wanted = new RegExp(`^${String(download.with!.pattern).split("*").map(escapeRegExp).join(".*")}$`);
    for (const name of (await readdir(artifacts)).filter((n) => wanted.test(n)))
      for (const file of await readdir(path.join(artifacts, name)))
        await copyFile(path.join(artifacts, name, file), path.join(into, file));
    const merge = await bash(substitute(mergeStep.step.run!, contexts), {
      ...stepEnv(mergeStep.job, mergeStep.step, contexts),
      RUNNER_TEMP: mergeTemp,
    });
    expect(merge.code, merge.output).toBe(0);

    const merged = await readJson(path.join(mergeTemp, "merged", "report.json"));
    const reference = await readJson(path.join(wholeTemp, "shards", "report.json"));
    expect(merged.simulations[0].report.seeds).toHaveLength(Number(shardStep.job.env!.SEEDS));
    expect(merged.simulations[0].plan.baseSeed).toBe(Number(runId));
    expect(withoutWallClock(merged)).toEqual(withoutWallClock(reference));
    expect(await readFile(path.join(mergeTemp, "merged", "junit.xml"), "utf8")).toContain("<testsuite");
  });

  it("Kubernetes: the Indexed Job's pods (JOB_COMPLETION_INDEX 0..N-1) and the merge Job equal one unsharded run", async () => {
    const [campaign] = readJobs(CAMPAIGN_MANIFEST);
    const [mergeJob] = readJobs(MERGE_MANIFEST);
    const container = campaign!.spec.template.spec.containers[0]!;
    // The image is this repository (deploy/kubernetes/Dockerfile), checked out at workingDir.
    expect(container.workingDir).toBe("/app");
    const volume = await tempDir("k8s-reports");
    const mounts = (c: typeof container) => Object.fromEntries(c.volumeMounts!.map((m) => [m.mountPath, volume]));
    const pod = containerRun(container, mounts(container));
    const n = campaign!.spec.completions!;

    const wholeVolume = await tempDir("k8s-whole");
    const whole = containerRun(
      container,
      Object.fromEntries(container.volumeMounts!.map((m) => [m.mountPath, wholeVolume])),
    );
    const [wholeExit, ...pods] = await Promise.all([
      run([...whole.argv.slice(0, -1), unsharded(whole.argv.at(-1)!)], whole.env),
      ...Array.from({ length: n }, (_, index) => run(pod.argv, { ...pod.env, JOB_COMPLETION_INDEX: String(index) })),
    ]);
    expect(wholeExit.code, wholeExit.output).toBe(0);
    for (const exit of pods) expect(exit.code, exit.output).toBe(0);
    expect((await readdir(volume)).sort()).toEqual(
      Array.from({ length: n }, (_, i) => `report.shard-${i + 1}-of-${n}.json`),
    );

    const mergeContainer = mergeJob!.spec.template.spec.containers[0]!;
    expect(mergeContainer.workingDir).toBe("/app");
    const merge = containerRun(mergeContainer, mounts(mergeContainer));
    const mergeExit = await run(merge.argv, merge.env);
    expect(mergeExit.code, mergeExit.output).toBe(0);

    const merged = await readJson(path.join(volume, "merged", "report.json"));
    const reference = await readJson(path.join(wholeVolume, "report.json"));
    expect(merged.simulations[0].report.seeds).toHaveLength(Number(pod.env.SEEDS));
    expect(withoutWallClock(merged)).toEqual(withoutWallClock(reference));
  });
});
