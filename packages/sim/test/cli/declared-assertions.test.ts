/** The source scan behind "never evaluated": which calls count as declared safety assertions. */
import { describe, expect, it } from "vitest";
import { assertionsInSource, neverEvaluated } from "../../src/cli/declared-assertions.ts";

const SOURCE = `
assertAlways(reply.type === "vote", "votes are answered", { term });
assertAlways(ok, 'single, quoted');
assertAlwaysGreaterThan(count(a, b), 0, "count stays positive");
assertAlwaysLessThanOrEqualTo(x, limit, "under the limit", { x });
assertAlways(ok, message);
assertAlways(ok, \`templated \${n}\`);
assertAlwaysOrUnreachable(ok, "may never run");
assertSometimes(ok, "a liveness signal");
assertAlways(
  nested(call(1, 2), [3, 4]),
  "spans lines \\"quoted\\"",
);
`;

describe("declared safety assertions", () => {
  it("finds assertAlways and the numeric always forms with literal messages, with their lines", () => {
    const found = assertionsInSource(SOURCE, (line) => `f.ts:${line}`);
    expect(found).toEqual([
      { message: "votes are answered", where: "f.ts:2" },
      { message: "single, quoted", where: "f.ts:3" },
      { message: "count stays positive", where: "f.ts:4" },
      { message: "under the limit", where: "f.ts:5" },
      { message: 'spans lines "quoted"', where: "f.ts:10" },
    ]);
  });

  it("lists only those the campaign never evaluated, by message", () => {
    const found = assertionsInSource(SOURCE, (line) => `f.ts:${line}`);
    const missing = neverEvaluated(
      found,
      new Set(["votes are answered", "single, quoted", "count stays positive", "under the limit"]),
    );
    expect(missing.map((a) => a.message)).toEqual(['spans lines "quoted"']);
    expect(neverEvaluated(found, new Set(found.map((a) => a.message)))).toEqual([]);
  });
});
