import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const fixture = fileURLToPath(new URL("./fixtures/crash-memory.ts", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

describe("crash semantics and memory", () => {
  it("10,000 crashed incarnations run no finally block and their memory is reclaimed (--expose-gc)", () => {
    const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", fixture, "10000"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    const r = JSON.parse(out.trim().split("\n").pop()!);
    expect(r.finallyRan).toBe(0);
    expect(r.resumed).toBe(0);
    // Suspended, each incarnation holds real memory (its frame, state and pending operation)...
    expect(r.bytesPerSuspended).toBeGreaterThan(200);
    // ...after the crash its frame and state are freed even while its timer events are still
    // queued (what remains is the queued event and its owner record)...
    expect(r.queuedAfterCrash).toBe(10000);
    expect(r.retainedBytesPerCrashed).toBeLessThan(r.bytesPerSuspended / 2);
    // ...and once those events have been popped as no-ops, the heap is back near its baseline.
    expect(r.retainedBytesAfterDrain).toBeLessThan(100);
  });
});
