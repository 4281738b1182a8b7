/**
 * A minimal XML well-formedness check (enough to say a JUnit file parses): one root element,
 * properly nested and closed tags, quoted attributes without raw '<' or '&', known entities.
 * Returns the element names in document order.
 */
export function checkXml(text: string): { elements: { name: string; attributes: Record<string, string> }[] } {
  const elements: { name: string; attributes: Record<string, string> }[] = [];
  const stack: string[] = [];
  let rootClosed = false;
  let i = text.startsWith("<?xml") ? text.indexOf("?>") + 2 : 0;
  const checkText = (t: string) => {
    for (const m of t.matchAll(/&([^;]*);?/g)) {
      if (!/^&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);$/.test(m[0]))
        throw new Error(`bad entity or raw '&': ${m[0]}`);
    }
    if (t.includes("<")) throw new Error("raw '<' in text");
  };
  while (i < text.length) {
    const lt = text.indexOf("<", i);
    const chunk = lt < 0 ? text.slice(i) : text.slice(i, lt);
    if (stack.length === 0 && chunk.trim() !== "")
      throw new Error(`text outside the root element: ${chunk.trim().slice(0, 40)}`);
    checkText(chunk);
    if (lt < 0) break;
    const gt = text.indexOf(">", lt);
    if (gt < 0) throw new Error("unterminated tag");
    const tag = text.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith("/")) {
      const name = tag.slice(1).trim();
      if (stack.pop() !== name) throw new Error(`mismatched closing tag </${name}>`);
      if (stack.length === 0) rootClosed = true;
      continue;
    }
    if (rootClosed) throw new Error("a second root element");
    const selfClosing = tag.endsWith("/");
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const nameMatch = /^([A-Za-z_][\w.-]*)/.exec(body);
    if (nameMatch === null) throw new Error(`bad tag <${tag}>`);
    const attributes: Record<string, string> = {};
    let rest = body.slice(nameMatch[1]!.length);
    const attr = /^\s+([A-Za-z_][\w.-]*)="([^"]*)"/;
    for (let m = attr.exec(rest); m !== null; m = attr.exec(rest)) {
      if (m[1]! in attributes) throw new Error(`duplicate attribute ${m[1]}`);
      checkText(m[2]!);
      attributes[m[1]!] = m[2]!;
      rest = rest.slice(m[0].length);
    }
    if (rest.trim() !== "") throw new Error(`bad attributes in <${tag}>`);
    elements.push({ name: nameMatch[1]!, attributes });
    if (!selfClosing) stack.push(nameMatch[1]!);
    else if (stack.length === 0) rootClosed = true;
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack[stack.length - 1]}>`);
  if (!rootClosed) throw new Error("no root element");
  return { elements };
}
