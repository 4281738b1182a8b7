import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

describe("README, Testing an existing Node service", () => {
  it("its example runs as written: a plain http.createServer app passes 50 seeds under network chaos", () => {
    const readme = readFileSync(`${repoRoot}README.md`, "utf8");
    const section = readme.slice(readme.indexOf("## Testing an existing Node service"));
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toContain("http.createServer");
    const dir = `${repoRoot}.vitest-cache/moonpool-readme-node-service`;
    mkdirSync(dir, { recursive: true });
    const file = `${dir}/example.mts`;
    const summary =
      "console.log(JSON.stringify({ iterations: report.iterations, failed: report.failedRuns, " +
      "sometimes: report.assertionDetails.map((d) => [d.message, d.status]) }));";
    writeFileSync(file, `${code}\n${summary}\n`);
    const out = execFileSync(process.execPath, ["--import", "tsx", file], {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const result = JSON.parse(out.trim().split("\n").pop()!);
    expect(result).toMatchObject({ iterations: 50, failed: 0 });
    expect(Object.fromEntries(result.sometimes)).toMatchObject({
      "hits only go up": "PASS",
      "a request got no answer": "PASS",
    });
  });
});
