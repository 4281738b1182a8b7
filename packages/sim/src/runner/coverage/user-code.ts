/**
 * Which scripts are the user's code for coverage: files under the project root (the folder of the
 * moonpool config, or the working folder), outside `node_modules` and outside the packages of this
 * project (`@moonpool/core`, `@moonpool/sim`), found by the nearest package.json's name. An
 * example package of this repository counts as user code: it is a system under test.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ENGINE_PACKAGES = new Set(["@moonpool/core", "@moonpool/sim"]);

export class UserCodeFilter {
  private readonly root: string;
  private readonly byUrl = new Map<string, boolean>();
  private readonly packageNameByDir = new Map<string, string | null>();

  constructor(rootDir: string) {
    this.root = path.resolve(rootDir) + path.sep;
  }

  includes(url: string): boolean {
    let answer = this.byUrl.get(url);
    if (answer === undefined) {
      answer = this.decide(url);
      this.byUrl.set(url, answer);
    }
    return answer;
  }

  private decide(url: string): boolean {
    if (!url.startsWith("file:")) return false;
    let file: string;
    try {
      file = fileURLToPath(url);
    } catch {
      return false;
    }
    if (!file.startsWith(this.root) || file.split(path.sep).includes("node_modules")) return false;
    const name = this.packageName(path.dirname(file));
    return name === null || !ENGINE_PACKAGES.has(name);
  }

  /** The name in the nearest package.json at or above `dir` (null when none names one). */
  private packageName(dir: string): string | null {
    const known = this.packageNameByDir.get(dir);
    if (known !== undefined) return known;
    let name: string | null = null;
    try {
      const parsed = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: unknown };
      name = typeof parsed.name === "string" ? parsed.name : "";
    } catch {
      const parent = path.dirname(dir);
      name = parent === dir ? null : this.packageName(parent);
    }
    this.packageNameByDir.set(dir, name);
    return name;
  }
}
