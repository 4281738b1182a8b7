/**
 * A reader for the EDN data Jepsen writes: nil, booleans, numbers, strings, characters, keywords
 * and symbols (read as strings without the colon), vectors and lists (arrays), maps (objects with
 * string keys), sets (arrays), `#_` discards and tagged values (the value, tag dropped).
 */
export class EdnParseError extends Error {
  override readonly name = "EdnParseError";
}

export type EdnValue = null | boolean | number | string | EdnValue[] | { [key: string]: EdnValue };

const DELIMITERS = new Set(["(", ")", "[", "]", "{", "}", '"', ";"]);

export interface EdnParseOptions {
  /**
   * Accept input that ends inside the outermost collection (a log cut off mid-write): the
   * complete forms read so far are kept and `onTruncated` is called.
   */
  readonly onTruncated?: (line: number) => void;
}

class Truncated {
  constructor(readonly at: number) {}
}

export function parseEdn(text: string, options: EdnParseOptions = {}): EdnValue[] {
  let pos = 0;
  let depth = 0;
  const line = (at: number) => text.slice(0, at).split("\n").length;
  const fail = (message: string, at = pos): never => {
    throw new EdnParseError(`EDN line ${line(at)}: ${message}`);
  };
  const skip = () => {
    while (pos < text.length) {
      const c = text[pos]!;
      if (c === ";") {
        while (pos < text.length && text[pos] !== "\n") pos++;
      } else if (c === "," || c === " " || c === "\n" || c === "\r" || c === "\t" || c === "\f") pos++;
      else break;
    }
  };
  const token = (): string => {
    const start = pos;
    while (pos < text.length) {
      const c = text[pos]!;
      if (c === "," || c === " " || c === "\n" || c === "\r" || c === "\t" || DELIMITERS.has(c)) break;
      pos++;
    }
    return text.slice(start, pos);
  };
  const readUntil = (close: string): EdnValue[] => {
    const items: EdnValue[] = [];
    depth++;
    try {
      for (;;) {
        skip();
        if (pos >= text.length) {
          if (options.onTruncated) throw new Truncated(pos);
          fail(`missing "${close}"`);
        }
        if (text[pos] === close) {
          pos++;
          return items;
        }
        const v = read();
        if (v !== DISCARDED) items.push(v as EdnValue);
      }
    } catch (error) {
      if (!(error instanceof Truncated) || depth > 1) throw error;
      options.onTruncated?.(line(error.at));
      return items;
    } finally {
      depth--;
    }
  };
  const DISCARDED = Symbol("discarded");
  const read = (): EdnValue | typeof DISCARDED => {
    skip();
    if (pos >= text.length) {
      if (options.onTruncated && depth > 0) throw new Truncated(pos);
      fail("unexpected end of input");
    }
    const c = text[pos]!;
    if (c === "[" || c === "(") {
      pos++;
      return readUntil(c === "[" ? "]" : ")");
    }
    if (c === "{") {
      const at = pos++;
      const items = readUntil("}");
      if (items.length % 2 !== 0) fail("a map needs an even number of forms", at);
      const map: { [key: string]: EdnValue } = {};
      for (let i = 0; i < items.length; i += 2)
        map[typeof items[i] === "string" ? (items[i] as string) : JSON.stringify(items[i])] = items[i + 1]!;
      return map;
    }
    if (c === "#") {
      const next = text[pos + 1];
      if (next === "{") {
        pos += 2;
        return readUntil("}");
      }
      if (next === "_") {
        pos += 2;
        read();
        return DISCARDED;
      }
      pos++;
      token(); // the tag
      return read();
    }
    if (c === '"') return readString();
    if (c === "\\") {
      pos++;
      const name = token();
      const named: Record<string, string> = { newline: "\n", space: " ", tab: "\t", return: "\r" };
      return named[name] ?? name;
    }
    if (c === ")" || c === "]" || c === "}") fail(`unexpected "${c}"`);
    const t = token();
    if (t === "nil") return null;
    if (t === "true") return true;
    if (t === "false") return false;
    if (t.startsWith(":")) return t.slice(1);
    if (/^[+-]?\d/.test(t)) {
      const n = Number(t.replace(/[NM]$/, ""));
      if (Number.isNaN(n)) fail(`not a number: ${t}`);
      return n;
    }
    return t;
  };
  const readString = (): string => {
    const start = pos++;
    let out = "";
    while (pos < text.length) {
      const c = text[pos++]!;
      if (c === '"') return out;
      if (c === "\\") {
        const e = text[pos++];
        out += e === "n" ? "\n" : e === "t" ? "\t" : e === "r" ? "\r" : (e ?? "");
      } else out += c;
    }
    return fail("unterminated string", start);
  };
  const values: EdnValue[] = [];
  for (;;) {
    skip();
    if (pos >= text.length) return values;
    const v = read();
    if (v !== DISCARDED) values.push(v as EdnValue);
  }
}
