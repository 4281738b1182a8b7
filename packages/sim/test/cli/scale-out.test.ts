/**
 * The scale-out recipes hold together: the workflow's CI job runs .ci/run on Node 20, its matrix
 * covers every shard once and the merge reads what the shards upload; the Kubernetes Job's
 * completions match its `--shard auto/N` and both Jobs share the reports volume.
 * scale-out.heavy.test.ts runs the commands.
 */
import { describe, expect, it } from "vitest";
import {
  CAMPAIGN_MANIFEST,
  MERGE_MANIFEST,
  readJobs,
  readKinds,
  readWorkflow,
  stepRunning,
  type WorkflowJob,
} from "./scale-out-recipes.ts";

/** A GitHub Actions expression, as the workflow spells it. */
const gha = (name: string) => `\${{ ${name} }}`;

const nodeVersion = (job: WorkflowJob) =>
  job.steps.find((s) => s.uses?.startsWith("actions/setup-node@"))?.with?.["node-version"];

describe("the GitHub Actions workflow", () => {
  const workflow = readWorkflow();

  it("runs `bash .ci/run` with CI=true on Node 20", () => {
    const { job } = stepRunning(workflow, "bash .ci/run");
    expect(job.env?.CI).toBe("true");
    expect(nodeVersion(job)).toBe(20);
    expect(job.steps[0]!.uses).toMatch(/^actions\/checkout@/);
  });

  it("shards one campaign over its matrix, each shard named explicitly, and merges every shard's report", () => {
    const { jobName, job, step } = stepRunning(workflow, "moonpool run");
    const shards = Number(job.env?.SHARDS);
    expect(job.strategy?.matrix?.shard).toEqual(Array.from({ length: shards }, (_, i) => i + 1));
    expect(job.strategy?.["fail-fast"]).toBe(false);
    // GitHub gives a matrix job no index variable: the matrix value is the shard.
    expect(step.run).toContain(`--shard ${gha("matrix.shard")}/$SHARDS`);
    // One base seed for every shard of a workflow run.
    expect(job.env?.BASE_SEED).toBe(gha("github.run_id"));
    expect(step.run).toContain('--out "$RUNNER_TEMP/shards"');
    const upload = job.steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"))!;
    expect(upload.with?.path).toBe(`${gha("runner.temp")}/shards/report.shard-*.json`);
    expect(upload.with?.name).toBe(`shard-${gha("matrix.shard")}`);

    const merge = stepRunning(workflow, "moonpool merge");
    expect(merge.job.needs).toBe(jobName);
    expect(nodeVersion(merge.job)).toBe(20);
    const download = merge.job.steps.find((s) => s.uses?.startsWith("actions/download-artifact@"))!;
    expect(download.with).toEqual({ pattern: "shard-*", "merge-multiple": true, path: `${gha("runner.temp")}/shards` });
    expect(merge.step.run).toContain('moonpool merge "$RUNNER_TEMP"/shards/report.shard-*.json');
  });
});

describe("the Kubernetes manifests", () => {
  it("an Indexed Job whose completions are the N of --shard auto/N, writing to a shared volume", () => {
    expect(readKinds(CAMPAIGN_MANIFEST)).toEqual(["PersistentVolumeClaim", "Job"]);
    const [job] = readJobs(CAMPAIGN_MANIFEST);
    expect(job!.spec.completionMode).toBe("Indexed");
    const container = job!.spec.template.spec.containers[0]!;
    const script = container.command.join(" ");
    const n = Number(/--shard auto\/(\d+)/.exec(script)?.[1]);
    expect(job!.spec.completions).toBe(n);
    expect(job!.spec.parallelism).toBe(n);
    expect(job!.spec.template.spec.restartPolicy).toBe("Never");
    const env = Object.fromEntries(container.env!.map((e) => [e.name, e.value]));
    expect(env.REPORTS).toBe(container.volumeMounts![0]!.mountPath);
    expect(script).toContain('--out "$REPORTS"');
  });

  it("a merge Job on the same volume", () => {
    const [campaign] = readJobs(CAMPAIGN_MANIFEST);
    const [merge] = readJobs(MERGE_MANIFEST);
    const volumes = (j: typeof merge) => JSON.stringify((j!.spec.template.spec as { volumes?: unknown }).volumes);
    expect(volumes(merge)).toBe(volumes(campaign));
    const container = merge!.spec.template.spec.containers[0]!;
    expect(container.command.join(" ")).toContain('moonpool merge "$REPORTS"/report.shard-*.json');
  });
});
