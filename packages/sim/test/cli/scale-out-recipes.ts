/**
 * Reads the repository's scale-out recipes (.github/workflows/ci.yml, deploy/kubernetes/*.yaml)
 * and turns them into the commands and environments the engines would run, so tests can run the
 * very commands on this machine: GitHub Actions' `${{ }}` expressions substituted from the
 * contexts a job has, Kubernetes' container command with its env and JOB_COMPLETION_INDEX.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";

export const REPOSITORY = fileURLToPath(new URL("../../../../", import.meta.url));
export const WORKFLOW_FILE = ".github/workflows/ci.yml";
export const CAMPAIGN_MANIFEST = "deploy/kubernetes/campaign-job.yaml";
export const MERGE_MANIFEST = "deploy/kubernetes/merge-job.yaml";

type Env = Record<string, string>;

export interface WorkflowStep {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly env?: Env;
  readonly with?: Record<string, unknown>;
}

export interface WorkflowJob {
  readonly "runs-on": string;
  readonly needs?: string | string[];
  readonly env?: Env;
  readonly strategy?: { readonly "fail-fast"?: boolean; readonly matrix?: Record<string, unknown[]> };
  readonly steps: WorkflowStep[];
}

export interface Workflow {
  readonly jobs: Record<string, WorkflowJob>;
}

export function readWorkflow(): Workflow {
  return parse(readFileSync(`${REPOSITORY}${WORKFLOW_FILE}`, "utf8")) as Workflow;
}

/** The contexts a job's expressions may use, as dotted names (`matrix.shard`, `runner.temp`). */
export type Contexts = Record<string, string>;

/**
 * Substitutes `${{ name }}` expressions. Only plain context names are supported; anything else
 * (or a name the contexts lack) throws, so a workflow change the emulation does not cover fails
 * the test instead of running something else.
 */
export function substitute(text: string, contexts: Contexts): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
    const value = contexts[expression];
    if (value === undefined)
      throw new Error(`${WORKFLOW_FILE}: expression \${{ ${expression} }} is not emulated by this test`);
    return value;
  });
}

/** The first step whose `run` script contains `needle`, with its job. */
export function stepRunning(
  workflow: Workflow,
  needle: string,
): { jobName: string; job: WorkflowJob; step: WorkflowStep } {
  for (const [jobName, job] of Object.entries(workflow.jobs)) {
    const step = job.steps.find((s) => typeof s.run === "string" && s.run.includes(needle));
    if (step !== undefined) return { jobName, job, step };
  }
  throw new Error(`${WORKFLOW_FILE}: no step runs '${needle}'`);
}

/** A step's environment: the job's env, then the step's (which wins), expressions substituted. */
export function stepEnv(job: WorkflowJob, step: WorkflowStep, contexts: Contexts): Env {
  const env: Env = {};
  for (const [key, value] of Object.entries({ ...job.env, ...step.env }))
    env[key] = substitute(String(value), contexts);
  return env;
}

export interface Container {
  readonly workingDir?: string;
  readonly command: string[];
  readonly args?: string[];
  readonly env?: { name: string; value: string }[];
  readonly volumeMounts?: { name: string; mountPath: string }[];
}

export interface JobManifest {
  readonly kind: string;
  readonly metadata: { name: string };
  readonly spec: {
    readonly completionMode?: string;
    readonly completions?: number;
    readonly parallelism?: number;
    readonly template: { spec: { restartPolicy: string; containers: Container[] } };
  };
}

/** The Job documents of a manifest file (other kinds, such as the volume claim, left out). */
export function readJobs(file: string): JobManifest[] {
  return parseAllDocuments(readFileSync(`${REPOSITORY}${file}`, "utf8"))
    .map((doc) => doc.toJS() as JobManifest)
    .filter((doc) => doc.kind === "Job");
}

/** A manifest's other documents, by kind. */
export function readKinds(file: string): string[] {
  return parseAllDocuments(readFileSync(`${REPOSITORY}${file}`, "utf8")).map(
    (doc) => (doc.toJS() as { kind: string }).kind,
  );
}

/**
 * A container's argv and env, with every volume mount path mapped to a local folder (`volumes`:
 * mount path → folder; a shared volume becomes one folder all pods write to). Values that name a
 * path under a mount are rewritten the same way.
 */
export function containerRun(container: Container, volumes: Record<string, string>): { argv: string[]; env: Env } {
  const local = (value: string): string => {
    for (const [mount, folder] of Object.entries(volumes))
      if (value === mount || value.startsWith(`${mount}/`)) return folder + value.slice(mount.length);
    return value;
  };
  const env: Env = {};
  for (const { name, value } of container.env ?? []) env[name] = local(String(value));
  return { argv: [...container.command, ...(container.args ?? [])], env };
}
