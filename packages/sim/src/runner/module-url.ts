/**
 * The URL of a module of this package, named by its source path (`.ts`), relative to `baseUrl`
 * (the caller's `import.meta.url`). Inside the repository modules run from their `.ts` sources; in
 * the published package they are compiled to `.js`, so the extension follows the caller's own.
 */
export function packageModuleUrl(relativeSourcePath: string, baseUrl: string): string {
  const compiled = !baseUrl.endsWith(".ts");
  return new URL(compiled ? relativeSourcePath.replace(/\.ts$/, ".js") : relativeSourcePath, baseUrl).href;
}
