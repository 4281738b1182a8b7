import { describe, expect, it } from "vitest";
import { runCli } from "../cli/helpers.ts";

describe("replay warns when a recipe's reseed points are never reached", () => {
  it("names the missed step and what ran instead; says nothing when every step is reached", async () => {
    const [missed, reached] = await Promise.all([
      runCli(["replay", "counter", "--seed", "5", "--recipe", "3@11 -> 999999999@12", "--no-trace"]),
      runCli(["replay", "counter", "--seed", "5", "--recipe", "3@11 -> 2@12", "--no-trace"]),
    ]);
    expect(missed.code, missed.stderr).toBe(0);
    expect(missed.stderr).toContain("warning: step 2 of the recipe (999999999@12) was never reached");
    expect(missed.stderr).toContain("so this replayed only the first 1 step(s), not the recorded one");
    expect(reached.code, reached.stderr).toBe(0);
    expect(reached.stderr).not.toContain("warning:");
  });
});
