/** The source scan behind "never evaluated": which calls count as declared assertions, and their kinds. */
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
assertUnreachable("passes by never running");
assertReachable("the retry path");
assertSometimesEach("leader per term", { term });
assertSometimesGreaterThan(n, 2, "three in a row");
assertSometimesAll("all replicas caught up", { a, b });
assertAlways(
  nested(call(1, 2), [3, 4]),
  "spans lines \\"quoted\\"",
);
`;

describe("declared assertions", () => {
  it("finds every kind with a literal message, with its line; not the unreachable family", () => {
    const found = assertionsInSource(SOURCE, (line) => `f.ts:${line}`);
    expect(found).toEqual([
      { message: "votes are answered", kind: "always", where: "f.ts:2" },
      { message: "single, quoted", kind: "always", where: "f.ts:3" },
      { message: "count stays positive", kind: "numericAlways", where: "f.ts:4" },
      { message: "under the limit", kind: "numericAlways", where: "f.ts:5" },
      { message: "a liveness signal", kind: "sometimes", where: "f.ts:9" },
      { message: "the retry path", kind: "reachable", where: "f.ts:11" },
      { message: "leader per term", kind: "sometimesEach", where: "f.ts:12" },
      { message: "three in a row", kind: "numericSometimes", where: "f.ts:13" },
      { message: "all replicas caught up", kind: "sometimesAll", where: "f.ts:14" },
      { message: 'spans lines "quoted"', kind: "always", where: "f.ts:15" },
    ]);
  });

  it("lists only those the campaign never evaluated, by message", () => {
    const found = assertionsInSource(SOURCE, (line) => `f.ts:${line}`);
    const missing = neverEvaluated(
      found,
      new Set(["votes are answered", "single, quoted", "count stays positive", "under the limit", "the retry path"]),
    );
    expect(missing.map((a) => a.message)).toEqual([
      "a liveness signal",
      "all replicas caught up",
      "leader per term",
      'spans lines "quoted"',
      "three in a row",
    ]);
    expect(neverEvaluated(found, new Set(found.map((a) => a.message)))).toEqual([]);
  });
});
