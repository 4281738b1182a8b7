/**
 * A small JSON Schema validator for the subset report.schema.json uses (draft 2020-12 keywords:
 * type, properties, required, additionalProperties, items, enum, const, anyOf, oneOf, minimum,
 * maximum, pattern, local $ref). An unknown keyword is an error, so the schema cannot silently
 * use something this validator ignores.
 */
type Schema = Record<string, any>;

const ANNOTATIONS = new Set(["$schema", "$id", "$defs", "title", "description"]);
const KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "minimum",
  "maximum",
  "pattern",
  "$ref",
]);

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === "number" && actual === "integer");
}

export function validate(root: Schema, value: unknown): string[] {
  const check = (schema: Schema, v: unknown, at: string, errors: string[]): void => {
    for (const key of Object.keys(schema)) {
      if (!KEYWORDS.has(key) && !ANNOTATIONS.has(key))
        throw new Error(`unsupported JSON Schema keyword '${key}' at ${at}`);
    }
    if (schema.$ref !== undefined) {
      const match = /^#\/\$defs\/(.+)$/.exec(schema.$ref);
      if (match === null || root.$defs?.[match[1]!] === undefined) throw new Error(`unresolvable $ref ${schema.$ref}`);
      check(root.$defs[match[1]!], v, at, errors);
    }
    if (schema.type !== undefined) {
      const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (!types.some((t) => typeMatches(v, t))) {
        errors.push(`${at}: expected ${types.join("|")}, got ${typeOf(v)}`);
        return;
      }
    }
    if (schema.const !== undefined && JSON.stringify(v) !== JSON.stringify(schema.const))
      errors.push(`${at}: expected ${JSON.stringify(schema.const)}, got ${JSON.stringify(v)}`);
    if (schema.enum !== undefined && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(v)))
      errors.push(`${at}: ${JSON.stringify(v)} not in ${JSON.stringify(schema.enum)}`);
    if (typeof v === "number") {
      if (schema.minimum !== undefined && v < schema.minimum) errors.push(`${at}: ${v} < minimum ${schema.minimum}`);
      if (schema.maximum !== undefined && v > schema.maximum) errors.push(`${at}: ${v} > maximum ${schema.maximum}`);
    }
    if (typeof v === "string" && schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(v))
      errors.push(`${at}: '${v}' does not match ${schema.pattern}`);
    for (const [keyword, needed] of [
      ["anyOf", (n: number) => n >= 1],
      ["oneOf", (n: number) => n === 1],
    ] as const) {
      if (schema[keyword] === undefined) continue;
      const passing = (schema[keyword] as Schema[]).filter((sub) => {
        const subErrors: string[] = [];
        check(sub, v, at, subErrors);
        return subErrors.length === 0;
      }).length;
      if (!needed(passing)) errors.push(`${at}: ${passing} of the ${keyword} alternatives match`);
    }
    if (Array.isArray(v) && schema.items !== undefined)
      v.forEach((item, i) => {
        check(schema.items, item, `${at}[${i}]`, errors);
      });
    if (typeOf(v) === "object") {
      const o = v as Record<string, unknown>;
      for (const key of schema.required ?? []) if (!(key in o)) errors.push(`${at}: missing required '${key}'`);
      for (const [key, child] of Object.entries(o)) {
        const declared = schema.properties?.[key];
        if (declared !== undefined) check(declared, child, `${at}.${key}`, errors);
        else if (schema.additionalProperties === false)
          errors.push(`${at}: unexpected property '${key}' (document it in report.schema.json)`);
        else if (typeof schema.additionalProperties === "object")
          check(schema.additionalProperties, child, `${at}.${key}`, errors);
      }
    }
  };
  const errors: string[] = [];
  check(root, value, "$", errors);
  return errors;
}
