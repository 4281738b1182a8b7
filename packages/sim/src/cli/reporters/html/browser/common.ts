/**
 * Shared helpers of the report pages (no dependencies, no network): the embedded page data, DOM
 * and SVG element builders, number and duration formats, a command box with a Copy button.
 */

/** An attribute value; null and undefined leave the attribute out. */
export type AttrValue = string | number | boolean | null | undefined;
export type Attrs = Readonly<Record<string, AttrValue>>;
/** What `el` appends: nodes, text, nested lists; null, undefined and false add nothing. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** The page's data, embedded as JSON by page.ts. */
export function pageData<T>(): T {
  return JSON.parse(document.getElementById("moonpool-data")!.textContent!) as T;
}

function append(node: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const c of child as readonly Child[]) append(node, c);
    return;
  }
  node.appendChild(typeof child === "object" ? (child as Node) : document.createTextNode(String(child)));
}

/** `el("td", { class: "num", title: "x" }, child, "text", ...)` */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (attrs)
    for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  for (const c of children) append(node, c);
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag: string, attrs?: Attrs | null, ...children: Child[]): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  if (attrs)
    for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  for (const c of children) append(node, c);
  return node;
}

/** `12,345` */
export function count(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** `0.125 ms`, `12 ms`, `1.50 s`, `2m 05s` */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "-";
  if (ms === 0) return "0";
  if (Math.abs(ms) < 1) return ms.toFixed(3) + " ms";
  if (ms < 1000) return (ms < 10 ? ms.toFixed(2) : Math.round(ms)) + " ms";
  if (ms < 60000) return (ms / 1000).toFixed(2) + " s";
  return Math.floor(ms / 60000) + "m " + String(Math.floor((ms % 60000) / 1000)).padStart(2, "0") + "s";
}

/** A command in a code box with a Copy button. */
export function command(text: string): HTMLDivElement {
  const button = el("button", { type: "button", title: "copy to the clipboard" }, "Copy");
  button.addEventListener("click", () => {
    const done = () => {
      button.textContent = "Copied";
      setTimeout(() => {
        button.textContent = "Copy";
      }, 1200);
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, () => {});
    else {
      const area = el("textarea", {}, text);
      document.body.appendChild(area);
      area.select();
      try {
        document.execCommand("copy");
        done();
      } catch {
        // the text stays selectable
      }
      area.remove();
    }
  });
  return el("div", { class: "cmd" }, el("code", {}, text), button);
}
