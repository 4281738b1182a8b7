/**
 * `moonpool run --watch` on a copy of a fixture: the first run, then exactly one rerun per edit
 * (of the simulation file, then of a module it imports), each with the edited behaviour; `f`
 * reruns only the failing seeds, `q` quits with the last run's status, SIGINT with 130. Every
 * wait is on the command's output, never on a clock.
 */
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Command } from "commander";
import { keyTrigger } from "../../src/cli/commands/run-watch.ts";
import { givenOptions, SEED_CHOOSING_OPTIONS } from "../../src/cli/watch/child-args.ts";
import { startCli } from "./helpers.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures-watch/", import.meta.url));
// Inside the repository, so the copy's `@moonpool/sim` resolves as the fixture's does.
const REPO = fileURLToPath(new URL("../../../../", import.meta.url));

/** The n-th time the watcher waits for changes (after the n-th run). */
const waiting = (n: number) => new RegExp(`(?:waiting for file changes[\\s\\S]*?){${n}}`);
const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, `${pattern.flags}g`))?.length ?? 0;

let copy: string | null = null;
afterEach(async () => {
  if (copy !== null) await rm(copy, { recursive: true, force: true });
  copy = null;
});

async function fixtureCopy(): Promise<string> {
  copy = path.join(REPO, "moonpool-reports", `watch-${process.pid}-${Date.now().toString(36)}`);
  await cp(FIXTURE, copy, { recursive: true });
  return copy;
}

async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, "utf8");
  expect(text).toContain(from);
  await writeFile(file, text.replace(from, to));
}

describe("moonpool run --watch", () => {
  it("reruns once per edit of the simulation or a module it imports, f reruns the failed seeds, q quits", async () => {
    const dir = await fixtureCopy();
    const cli = startCli(["run", "watched", "--watch", "-n", "3", "--base-seed", "1"], { cwd: dir, stdin: true });
    await cli.stderrMatch(waiting(1));
    expect(cli.output().stderr).toContain("press a or Enter to rerun all, f to rerun the failed seeds, q to quit");
    expect(cli.output().stderr).toMatch(/PASS waiting for file changes \(3 files: /);
    expect(cli.output().stdout).toContain("Simulations: 1 passed, 0 failed");
    // The run got the flags as given.
    expect(cli.output().stderr).toMatch(/^▶ watched: 3 seeds from base seed 1 on /m);

    // The simulation file: it now fails from its third tick.
    await edit(path.join(dir, "watched.sim.ts"), "FAIL_AT_TICK = 1_000", "FAIL_AT_TICK = 3");
    await cli.stderrMatch(waiting(2));
    let { stdout, stderr } = cli.output();
    expect(stderr).toContain("rerun: changed watched.sim.ts");
    expect(count(stderr, /^▶ watched: /m)).toBe(2);
    expect(stderr).toMatch(/FAIL waiting for file changes/);
    expect(stdout).toContain("Simulations: 0 passed, 1 failed");
    expect(stdout).toContain('"ticks stay below the limit" violated: 3 seeds of 3');

    // f: only the failing seeds, by --seeds-from.
    cli.child.stdin!.write("f");
    await cli.stderrMatch(waiting(3));
    ({ stderr } = cli.output());
    expect(stderr).toContain("rerun: the 3 failing seeds");
    expect(stderr).toMatch(/^▶ watched: 3 listed seeds/m);

    // A module the simulation imports: two ticks, below the limit again.
    await edit(path.join(dir, "limit.ts"), "TICKS = 5", "TICKS = 2");
    await cli.stderrMatch(waiting(4));
    ({ stdout, stderr } = cli.output());
    expect(stderr).toContain("rerun: changed limit.ts");
    expect(stderr).toMatch(/PASS waiting for file changes/);
    expect(stdout.trimEnd().split("\n").at(-1)).toMatch(/^Simulations: 1 passed, 0 failed/);

    cli.child.stdin!.write("q");
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    // One run per trigger: the first, the edit, f, the import's edit.
    expect(count(result.stderr, /^▶ watched: /m)).toBe(4);
    expect(count(result.stderr, /^rerun: /m)).toBe(3);
  });

  it("SIGINT while waiting quits with 130", async () => {
    const dir = await fixtureCopy();
    const cli = startCli(["run", "--watch", "-n", "1"], { cwd: dir, stdin: true });
    await cli.stderrMatch(waiting(1));
    cli.child.kill("SIGINT");
    const result = await cli.done;
    expect(result.code).toBe(130);
    expect(count(result.stderr, /^▶ watched: /m)).toBe(1);
  });

  it("keys: a and Enter rerun all, f the failed seeds, q and Ctrl-C quit, others nothing", () => {
    expect(keyTrigger("a")).toEqual({ kind: "all" });
    expect(keyTrigger("\r")).toEqual({ kind: "all" });
    expect(keyTrigger("f")).toEqual({ kind: "failed" });
    expect(keyTrigger("q")).toEqual({ kind: "quit", signal: null });
    expect(keyTrigger("\u0003")).toEqual({ kind: "quit", signal: "SIGINT" });
    expect(keyTrigger("x")).toBeNull();
  });

  it("each run gets the options as given, in one spelling; f's run drops those that choose seeds", () => {
    const command = new Command("run")
      .exitOverride()
      .argument("[filter...]")
      .option("-n, --iterations <n>")
      .option("--base-seed <seed>")
      .option("-r, --reporter <name>", "", (v: string, p: string[]) => [...p, v], [] as string[])
      .option("--no-stop-on-failure")
      .option("-x")
      .option("-w, --watch")
      .option("-j, --workers <n>", "", "4");
    command.parse(["-n5", "--base-seed=1", "-r", "json", "-r", "text", "--no-stop-on-failure", "-x", "-w", "sim"], {
      from: "user",
    });
    expect(givenOptions(command, new Set(["watch"]))).toEqual([
      "--iterations",
      "5",
      "--base-seed",
      "1",
      "--reporter",
      "json",
      "--reporter",
      "text",
      "--no-stop-on-failure",
      "-x",
    ]);
    expect(givenOptions(command, new Set(["watch", ...SEED_CHOOSING_OPTIONS]))).not.toContain("--iterations");
  });
});
