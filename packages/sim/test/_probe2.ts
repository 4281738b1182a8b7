import { shrinkTimeline } from "../src/index.ts";
import { rollsAfterReboot } from "./fixtures/hunt-fixture.ts";
const seed = Number(process.argv[2] ?? 1), max = Number(process.argv[3] ?? 150);
const r = await shrinkTimeline(rollsAfterReboot(), { seed, maxRuns: max, onProgress: (p) => { if (p.kept || p.candidate.startsWith("hunt")) console.log(p.runs, p.candidate, p.kept, p.best.events, p.best.faults); } });
console.log(JSON.stringify({ ...r, before: r.before.events + "/" + r.before.faults, after: r.after.events + "/" + r.after.faults }));
