import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

describe("README", () => {
  it("its first TypeScript example runs as written and passes", () => {
    const readme = readFileSync(`${repoRoot}README.md`, "utf8");
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    const dir = `${repoRoot}.vitest-cache/moonpool-readme`; // in the repository (not node_modules): its `paths` apply
    mkdirSync(dir, { recursive: true });
    const file = `${dir}/example.mts`; // .mts: an ES module wherever it lives (top-level await)
    writeFileSync(
      file,
      `${code}\nconsole.log(JSON.stringify({ iterations: report.iterations, failed: report.failedRuns }));\n`,
    );
    const out = execFileSync(process.execPath, ["--import", "tsx", file], {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const result = JSON.parse(out.trim().split("\n").pop()!);
    expect(result.failed).toBe(0);
    expect(result.iterations).toBeGreaterThan(10);
  });
});
