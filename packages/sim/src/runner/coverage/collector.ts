/**
 * Collects V8 block coverage inside a pool worker through the inspector (precise coverage with
 * call counts, which resets the counters at every take, so each take holds exactly what ran since
 * the previous one; binary coverage is cheaper but reports fewer blocks once they ran in an earlier
 * take, so a seed's coverage would depend on what its worker ran before). A root seed's coverage
 * is what ran during the seed, plus what the top level of each file it ran did when the file was
 * imported: that part runs once per worker, and adding it to
 * every seed that uses the file keeps a seed's coverage independent of which worker ran it before.
 */
import { Session, type Profiler } from "node:inspector";
import {
  fileCoverageFromV8,
  unionBlockCoverage,
  unionFileCoverage,
  type BlockCoverage,
  type FileBlockCoverage,
} from "./block-coverage.ts";
import { UserCodeFilter } from "./user-code.ts";

let session: Session | null = null;
const filters = new Map<string, UserCodeFilter>();
/** Coverage of files' top levels, taken outside seeds (at import), by URL. */
const importCoverage = new Map<string, FileBlockCoverage>();
const scriptIds = new Map<string, string>();

function post<T>(method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => {
    session!.post(method, params ?? {}, (error, result) => (error !== null ? reject(error) : resolve(result as T)));
  });
}

/** Starts precise coverage in this thread (once); call it before the simulation module is imported. */
export async function startCoverage(): Promise<void> {
  if (session !== null) return;
  session = new Session();
  session.connect();
  await post("Profiler.enable");
  await post("Profiler.startPreciseCoverage", { callCount: true, detailed: true });
}

function filterFor(rootDir: string): UserCodeFilter {
  let filter = filters.get(rootDir);
  if (filter === undefined) {
    filter = new UserCodeFilter(rootDir);
    filters.set(rootDir, filter);
  }
  return filter;
}

async function takeUserScripts(rootDir: string): Promise<Profiler.ScriptCoverage[]> {
  const { result } = await post<Profiler.TakePreciseCoverageReturnType>("Profiler.takePreciseCoverage");
  const filter = filterFor(rootDir);
  const scripts = result.filter((s) => filter.includes(s.url));
  for (const s of scripts) scriptIds.set(s.url, s.scriptId);
  return scripts;
}

/**
 * Ends whatever ran outside a seed (imports: recorded as those files' top-level coverage) and
 * starts a seed's window. Call after loading the simulation, before running the seed.
 */
export async function beginSeedCoverage(rootDir: string): Promise<void> {
  for (const script of await takeUserScripts(rootDir)) {
    if (!importCoverage.has(script.url)) importCoverage.set(script.url, fileCoverageFromV8(script.functions));
  }
}

/** Ends a seed's window: its coverage of the user's code. */
export async function endSeedCoverage(rootDir: string): Promise<BlockCoverage> {
  const scripts = (await takeUserScripts(rootDir)).sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  const out: Record<string, FileBlockCoverage> = {};
  for (const script of scripts) {
    const ran = fileCoverageFromV8(script.functions);
    const imported = importCoverage.get(script.url);
    out[script.url] = imported === undefined ? ran : unionFileCoverage(imported, ran);
  }
  return unionBlockCoverage(out, {});
}

/**
 * The generated source of each script (what the coverage offsets point into, with its source map),
 * null for one this thread never ran. The debugger is on only for the lookup: it slows execution.
 */
export async function scriptSources(urls: readonly string[]): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  await post("Debugger.enable");
  try {
    for (const url of urls) {
      const id = scriptIds.get(url);
      out[url] =
        id === undefined
          ? null
          : (await post<{ scriptSource: string }>("Debugger.getScriptSource", { scriptId: id })).scriptSource;
    }
  } finally {
    await post("Debugger.disable");
  }
  return out;
}
