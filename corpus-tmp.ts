import { readFileSync, readdirSync } from "node:fs";
import { parseKnossosHistory } from "./packages/sim/src/linearizability/knossos.ts";
import { checkLinearizability } from "./packages/sim/src/linearizability/checker.ts";
import { casRegisterModel } from "./packages/sim/src/linearizability/models.ts";
const root = "/work/shared/histories/knossos/cas-register";
const rows: [string, number, number, number][] = [];
for (let rep = 0; rep < 2; rep++) for (const v of ["good", "bad"]) for (const f of readdirSync(`${root}/${v}`)) {
  const ops = parseKnossosHistory(readFileSync(`${root}/${v}/${f}`, "utf8"));
  const t0 = performance.now(); const r = checkLinearizability(casRegisterModel(0), ops); const ms = performance.now() - t0;
  if (rep === 1) rows.push([f, ops.length, r.steps, ms]);
}
rows.sort((a, b) => b[3] - a[3]); console.log(rows.slice(0, 6).map(r => `${r[0]} ops=${r[1]} steps=${r[2]} ${r[3].toFixed(1)}ms`).join("\n"));
console.log("total", rows.reduce((s, r) => s + r[3], 0).toFixed(0));
