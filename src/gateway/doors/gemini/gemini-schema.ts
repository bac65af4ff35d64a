/**
 * A function declaration's `parameters` (or `responseSchema`) is Google's Schema object, a subset
 * of OpenAPI 3.0: upper-case type names (`OBJECT`, `STRING`), `nullable`, `propertyOrdering`.
 * Every other vendor takes JSON Schema, so the cross-vendor lane writes it as JSON Schema; a
 * declaration with `parametersJsonSchema` is JSON Schema already and passes as it is.
 */

const KEPT = [
  'description',
  'format',
  'title',
  'enum',
  'required',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
  'pattern',
  'default',
  'example',
] as const;

/** Nesting beyond this is refused by the tool validation anyway; the walk stops here. */
const MAX_DEPTH = 64;

/** Google's Schema as JSON Schema; a value that is not an object is given back as it is. */
export function toJsonSchema(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > MAX_DEPTH)
    return schema;
  const source = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const type = source['type'];
  if (typeof type === 'string' && type !== 'TYPE_UNSPECIFIED') {
    const lower = type.toLowerCase();
    out['type'] = source['nullable'] === true ? [lower, 'null'] : lower;
  }
  for (const key of KEPT) if (source[key] !== undefined) out[key] = source[key];
  const properties = source['properties'];
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    const written: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(properties)) written[name] = toJsonSchema(value, depth + 1);
    out['properties'] = written;
  }
  if (source['items'] !== undefined) out['items'] = toJsonSchema(source['items'], depth + 1);
  const anyOf = source['anyOf'];
  if (Array.isArray(anyOf)) out['anyOf'] = anyOf.map((item) => toJsonSchema(item, depth + 1));
  return out;
}
