/**
 * The files a simulation runs: its file and every local module it imports, transitively (not
 * packages, not node_modules). esbuild resolves them as tsx will load them (TypeScript extensions,
 * `.js` specifiers of `.ts` files, index files), without writing anything; a file that does not
 * parse right now still counts itself, so fixing it triggers the next run.
 */
import path from "node:path";
import { build } from "esbuild";

export async function localImports(entries: readonly string[], rootDir: string): Promise<string[]> {
  const files = new Set(entries.map((f) => path.resolve(f)));
  for (const entry of entries) {
    try {
      const result = await build({
        entryPoints: [entry],
        absWorkingDir: rootDir,
        bundle: true,
        write: false,
        metafile: true,
        platform: "node",
        format: "esm",
        packages: "external",
        logLevel: "silent",
      });
      for (const input of Object.keys(result.metafile.inputs)) {
        // Namespaced inputs (e.g. "<define:...>") are no files.
        if (input.includes(":") && !path.isAbsolute(input)) continue;
        const file = path.resolve(rootDir, input);
        if (!file.split(path.sep).includes("node_modules")) files.add(file);
      }
    } catch {
      // A syntax error: the entry alone, until it parses again.
    }
  }
  return [...files].sort();
}
