/**
 * User strings reach the terminal with their control characters escaped: an OSC or CSI sequence in
 * an assertion message or a trace field cannot set the window title or clear the screen.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { escapeTerminal } from "../../src/cli/terminal-text.ts";
import { runCli } from "./helpers.ts";

const ROBUSTNESS = fileURLToPath(new URL("./fixtures-robustness/", import.meta.url));
// biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters are what must not appear.
const RAW_CONTROL = /[\x00-\x08\x0B-\x1F\x7F-\x9F]/;

describe("escapeTerminal", () => {
  it("writes control characters as \\xNN, keeping newlines and tabs", () => {
    expect(escapeTerminal("a\u001b]0;title\u0007b\u001b[2J\r\n\tc\u009b")).toBe(
      "a\\x1B]0;title\\x07b\\x1B[2J\\x0D\n\tc\\x9B",
    );
    expect(escapeTerminal("plain text, ünïcode ✓")).toBe("plain text, ünïcode ✓");
  });

  it("keeps colour sequences only when asked (the CLI's own colours), never other sequences", () => {
    const red = "\u001b[31mred\u001b[39m";
    expect(escapeTerminal(`${red} \u001b[2J`, true)).toBe(`${red} \\x1B[2J`);
    expect(escapeTerminal(red)).toBe("\\x1B[31mred\\x1B[39m");
  });
});

describe("moonpool output of user strings", () => {
  it("the text report and failure lines escape a message's terminal sequences", async () => {
    const result = await runCli(["run", "escapes", "--iterations", "1", "--base-seed", "1"], { cwd: ROBUSTNESS });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain("bad \\x1B]0;pwned\\x07 and \\x1B[2J cleared");
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
  });

  it("replay escapes trace fields and failures", async () => {
    const result = await runCli(["replay", "escapes", "--seed", "1"], { cwd: ROBUSTNESS });
    expect(result.code, result.stderr).toBe(1);
    // Trace fields print as JSON strings (\u001b); the failure line is escaped (\x1B).
    expect(result.stdout).toContain('text="\\u001b]0;pwned\\u0007"');
    expect(result.stdout).toContain("Error: bad \\x1B]0;pwned\\x07 and \\x1B[2J cleared");
    expect(result.stdout).not.toMatch(RAW_CONTROL);
  });
});
