import { readFileSync } from "node:fs";
import { parseKnossosHistory } from "./packages/sim/src/linearizability/knossos.ts";
import { checkLinearizability } from "./packages/sim/src/linearizability/checker.ts";
import { casRegisterModel } from "./packages/sim/src/linearizability/models.ts";
const root = "/work/shared/histories/knossos/cas-register/good/";
for (const f of ["memstress3-6.edn", "memstress3-65.edn"]) {
  const ops = parseKnossosHistory(readFileSync(root + f, "utf8"));
  console.log(f, ops.filter(o => o.crashed).length, "crashed", ops.filter(o=>o.crashed).map(o=>o.input.f).join(","));
  for (let i = 0; i < 5; i++) { const t0 = performance.now(); const r = checkLinearizability(casRegisterModel(0), ops); console.log(r.verdict, r.steps, (performance.now() - t0).toFixed(2)); }
}
