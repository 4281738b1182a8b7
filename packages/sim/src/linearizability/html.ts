/**
 * A self-contained HTML page for a check result: each part's operations as bars per client over
 * the history's event order, the longest partial linearization drawn through them, and the state
 * before and after each linearized operation on hover. No network access is needed to open it.
 */
import type { CheckResult, PartResult } from "./checker.ts";
import { describeOperation } from "./explain.ts";
import { searchModel, type Model } from "./model.ts";

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const LANE_PX = 26;
const WIDTH_PX = 1100;
const LEFT_PX = 120;

function partSvg<I, O>(model: Model<unknown, I, O>, part: PartResult<I, O>): string {
  const ops = part.operations;
  if (ops.length === 0) return "<p>(no operations)</p>";
  const clients = [...new Set(ops.map((o) => o.client))];
  const lane = new Map(clients.map((c, i) => [c, i]));
  const finite = ops.flatMap((o) => (o.crashed ? [o.callIndex] : [o.callIndex, o.returnIndex]));
  const minPos = Math.min(...finite);
  const maxPos = Math.max(...finite) + 1;
  const x = (pos: number) =>
    LEFT_PX + ((Math.min(pos, maxPos) - minPos) / (maxPos - minPos)) * (WIDTH_PX - LEFT_PX - 20);
  const height = clients.length * LANE_PX + 30;
  const out: string[] = [`<svg width="${WIDTH_PX}" height="${height}" xmlns="http://www.w3.org/2000/svg">`];
  clients.forEach((c, i) => {
    out.push(`<text x="4" y="${i * LANE_PX + 18}" class="lane">${escapeHtml(String(c))}</text>`);
    out.push(
      `<line x1="${LEFT_PX}" x2="${WIDTH_PX - 10}" y1="${i * LANE_PX + 24}" y2="${i * LANE_PX + 24}" class="grid"/>`,
    );
  });
  // State after each linearized operation, replayed through the model for the hover text.
  const search = searchModel(model);
  const order = part.longest?.order ?? [];
  const position = new Map(order.map((id, k) => [id, k]));
  const states: string[] = [search.describeState(search.init())];
  let state = search.init();
  for (const id of order) {
    const op = ops[id]!;
    state = search.step(state, op.input, op.output).state;
    states.push(search.describeState(state));
  }
  const stuck = part.longest?.stuckOp;
  for (const op of ops) {
    const y = lane.get(op.client)! * LANE_PX + 6;
    const x1 = x(op.callIndex);
    const x2 = op.crashed ? WIDTH_PX - 12 : x(op.returnIndex);
    const k = position.get(op.id);
    const cls = op.id === stuck ? "op stuck" : k !== undefined ? "op lin" : op.crashed ? "op crashed" : "op";
    const tip = [
      describeOperation(model, op),
      k !== undefined ? `linearized #${k + 1}: ${states[k]} → ${states[k + 1]}` : "",
    ]
      .filter(Boolean)
      .join("\n");
    out.push(
      `<rect class="${cls}" x="${x1.toFixed(1)}" y="${y}" width="${Math.max(2, x2 - x1).toFixed(1)}" height="16" rx="3" data-tip="${escapeHtml(tip)}"/>`,
    );
  }
  // The partial linearization: one point per linearized operation, non-decreasing in event order
  // and inside the operation's bar.
  let last = -Infinity;
  const points: string[] = [];
  for (const id of order) {
    const op = ops[id]!;
    const end = op.crashed ? maxPos : op.returnIndex;
    const at = Math.min(Math.max(last, op.callIndex + 0.5), end - 0.1);
    last = at;
    points.push(`${x(at).toFixed(1)},${lane.get(op.client)! * LANE_PX + 14}`);
  }
  if (points.length > 1) out.push(`<polyline class="path" points="${points.join(" ")}"/>`);
  out.push("</svg>");
  return out.join("\n");
}

/** The page for a check result; `title` names the history (a file or a seed). */
export function checkResultHtml<S, I, O>(model: Model<S, I, O>, result: CheckResult<I, O>, title: string): string {
  const m = model as unknown as Model<unknown, I, O>;
  const shown = result.parts.filter((p) => p.verdict !== "linearizable");
  const sections = (shown.length > 0 ? shown : result.parts.slice(0, 1)).map((p) => {
    const key = (p.operations[0]?.input as { key?: unknown } | undefined)?.key;
    const label = `part ${p.index + 1}${key !== undefined ? ` (key ${escapeHtml(String(key))})` : ""}: ${p.verdict}`;
    const stuck = p.longest ? p.operations[p.longest.stuckOp] : undefined;
    const note = stuck ? `<p class="note">cannot place: ${escapeHtml(describeOperation(m, stuck))}</p>` : "";
    return `<section><h2>${label}</h2>${note}${partSvg(m, p)}</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}: ${result.verdict}</title>
<style>
body{font:14px system-ui,sans-serif;margin:20px;color:#222}
h1{font-size:20px}.verdict-illegal{color:#b00020}.verdict-linearizable{color:#11703a}.verdict-unknown{color:#8a6d00}
.lane{font:12px monospace;fill:#444}.grid{stroke:#eee}
.op{fill:#c9d6e8;stroke:#6b84a8}.op.lin{fill:#9fd3a8;stroke:#3e8a4d}.op.crashed{fill:#eee;stroke:#aaa;stroke-dasharray:3 2}
.op.stuck{fill:#f4a3a3;stroke:#b00020;stroke-width:2}.path{fill:none;stroke:#3e8a4d;stroke-width:1.5}
#tip{position:fixed;pointer-events:none;background:#222;color:#fff;padding:6px 8px;border-radius:4px;white-space:pre;font:12px monospace;display:none}
</style></head><body>
<h1>${escapeHtml(title)}: <span class="verdict-${result.verdict}">${result.verdict}</span></h1>
<p>model ${escapeHtml(result.model)}, ${result.operations} operations, ${result.parts.length} part(s), ${result.steps} search steps</p>
<p>Bars: one operation from invocation to completion (dashed: crashed, may take effect any time after its start or never);
green: in the longest partial linearization, joined in order by the line; red: the operation that could not be placed.</p>
${sections.join("\n")}
<div id="tip"></div>
<script>
const tip=document.getElementById("tip");
document.addEventListener("mousemove",(e)=>{const t=e.target.closest&&e.target.closest("[data-tip]");
if(!t){tip.style.display="none";return;}tip.textContent=t.getAttribute("data-tip");tip.style.display="block";
tip.style.left=(e.clientX+12)+"px";tip.style.top=(e.clientY+12)+"px";});
</script></body></html>
`;
}
