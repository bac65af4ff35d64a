/**
 * Builds a JSON value that satisfies a JSON Schema (2020-12 or draft-07), for the simulated
 * provider's /v1/json answers. It covers what structured-output schemas use in practice: types,
 * properties, required, items, enum, const, numeric and length bounds, formats, local $ref,
 * allOf, anyOf and oneOf (first branch). A `pattern` it cannot honour yields a value that fails
 * validation, so the gateway's re-ask path reports it honestly.
 */
type Schema = Record<string, unknown> | boolean;

const FORMAT_SAMPLES: Record<string, string> = {
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '12:00:00Z',
  duration: 'P1D',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  'json-pointer': '/a',
  regex: '^a$',
};

const MAX_DEPTH = 24;

export function sampleFromSchema(root: Schema, pick: () => number): unknown {
  return sample(root, root, pick, 0);
}

function sample(schema: Schema, root: Schema, pick: () => number, depth: number): unknown {
  if (schema === true || schema === false || depth > MAX_DEPTH) return null;
  const resolved = resolveRef(schema, root);
  if (resolved !== schema) return sample(resolved, root, pick, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return schema.enum[Math.floor(pick() * schema.enum.length)];
  if (Array.isArray(schema.allOf)) return sample(mergeAll(schema, root), root, pick, depth + 1);
  const branch = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(branch) && branch.length > 0) {
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    return sample(mergeSchemas(rest, branch[0] as Schema, root), root, pick, depth + 1);
  }
  switch (pickType(schema)) {
    case 'object':
      return sampleObject(schema, root, pick, depth);
    case 'array':
      return sampleArray(schema, root, pick, depth);
    case 'string':
      return sampleString(schema, pick);
    case 'integer':
      return sampleNumber(schema, true);
    case 'number':
      return sampleNumber(schema, false);
    case 'boolean':
      return pick() < 0.5;
    case 'null':
      return null;
    default:
      return 'simulated';
  }
}

function pickType(schema: Record<string, unknown>): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') ?? type[0]) as string | undefined;
  if (schema.properties !== undefined || schema.required !== undefined) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  return undefined;
}

function sampleObject(
  schema: Record<string, unknown>,
  root: Schema,
  pick: () => number,
  depth: number,
): unknown {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const result: Record<string, unknown> = {};
  for (const [key, propertySchema] of Object.entries(properties)) {
    result[key] = sample(propertySchema, root, pick, depth + 1);
  }
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  for (const key of required) {
    if (!(key in result)) result[key] = extraValue(schema, root, pick, depth);
  }
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  for (let i = 0; Object.keys(result).length < minProperties; i++) {
    result[`field${i}`] = extraValue(schema, root, pick, depth);
  }
  return result;
}

function extraValue(
  schema: Record<string, unknown>,
  root: Schema,
  pick: () => number,
  depth: number,
): unknown {
  const additional = schema.additionalProperties;
  return typeof additional === 'object' ? sample(additional as Schema, root, pick, depth + 1) : 'simulated';
}

function sampleArray(
  schema: Record<string, unknown>,
  root: Schema,
  pick: () => number,
  depth: number,
): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
  const items = Array.isArray(schema.items) ? undefined : (schema.items as Schema | undefined);
  const min = typeof schema.minItems === 'number' ? schema.minItems : 1;
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : Math.max(min, 2);
  const length = Math.min(Math.max(min, prefix.length, items === undefined ? 0 : Math.min(2, max)), max);
  const result: unknown[] = [];
  for (let i = 0; i < length; i++) {
    const itemSchema = prefix[i] ?? items ?? true;
    let value = sample(itemSchema, root, pick, depth + 1);
    // uniqueItems: resample a few times before giving up.
    for (let tries = 0; schema.uniqueItems === true && tries < 8 && containsEqual(result, value); tries++) {
      value = sample(itemSchema, root, pick, depth + 1);
    }
    result.push(value);
  }
  return result;
}

function sampleString(schema: Record<string, unknown>, pick: () => number): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const format = typeof schema.format === 'string' ? FORMAT_SAMPLES[schema.format] : undefined;
  if (format !== undefined) return padFormatted(schema.format as string, format, min);
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const words = ['simulated', 'value', 'sample', 'gateway', 'answer', 'text'];
  let text = words[Math.floor(pick() * words.length)] ?? 'simulated';
  while ([...text].length < min) text += ' sample';
  return [...text].slice(0, Math.max(min, Math.min(max, [...text].length))).join('');
}

/** Lengthens a format sample to minLength where the format has room for it. */
function padFormatted(format: string, sample: string, minLength: number): string {
  const missing = minLength - sample.length;
  if (missing <= 0) return sample;
  if (format === 'email' || format === 'idn-email') return `user${'x'.repeat(missing)}@example.com`;
  if (format.startsWith('ur') || format === 'iri') return `${sample}${'x'.repeat(missing)}`;
  if (format === 'date-time') return `2026-01-01T00:00:00.${'0'.repeat(Math.max(1, missing - 1))}Z`;
  return sample;
}

function sampleNumber(schema: Record<string, unknown>, integer: boolean): number {
  const num = (key: string): number | undefined =>
    typeof schema[key] === 'number' ? (schema[key] as number) : undefined;
  let low = num('minimum') ?? Number.NEGATIVE_INFINITY;
  let high = num('maximum') ?? Number.POSITIVE_INFINITY;
  const exclusiveMin =
    num('exclusiveMinimum') ?? (schema.exclusiveMinimum === true ? num('minimum') : undefined);
  const exclusiveMax =
    num('exclusiveMaximum') ?? (schema.exclusiveMaximum === true ? num('maximum') : undefined);
  const step = num('multipleOf') ?? (integer ? 1 : undefined);
  const epsilon = step ?? 0.5;
  if (exclusiveMin !== undefined) low = Math.max(low, exclusiveMin + epsilon);
  if (exclusiveMax !== undefined) high = Math.min(high, exclusiveMax - epsilon);
  let value = Number.isFinite(low) ? low : Number.isFinite(high) ? Math.min(high, 0) : 1;
  if (Number.isFinite(low) && Number.isFinite(high)) value = low + (high - low) / 2;
  if (step !== undefined) {
    const snapped = Math.ceil(value / step) * step;
    value = snapped <= high ? snapped : Math.floor(value / step) * step;
  }
  return integer ? Math.round(value) : value;
}

function resolveRef(schema: Record<string, unknown>, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#') || typeof root !== 'object') return schema;
  let target: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    target =
      typeof target === 'object' && target !== null ? (target as Record<string, unknown>)[key] : undefined;
  }
  if (typeof target !== 'object' && typeof target !== 'boolean') return schema;
  const { $ref: _ref, ...rest } = schema;
  return Object.keys(rest).length === 0 ? (target as Schema) : mergeSchemas(rest, target as Schema, root);
}

function mergeAll(schema: Record<string, unknown>, root: Schema): Schema {
  const { allOf, ...rest } = schema;
  return (allOf as Schema[]).reduce<Schema>((merged, part) => mergeSchemas(merged, part, root), rest);
}

function mergeSchemas(a: Schema, b: Schema, root: Schema): Schema {
  if (typeof a === 'boolean' || typeof b === 'boolean') return typeof a === 'boolean' ? b : a;
  const right = resolveRef(b, root) as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...a, ...right };
  if (a.properties !== undefined || right.properties !== undefined) {
    merged.properties = { ...(a.properties as object), ...(right.properties as object) };
  }
  if (Array.isArray(a.required) || Array.isArray(right.required)) {
    merged.required = [
      ...new Set([...((a.required as string[]) ?? []), ...((right.required as string[]) ?? [])]),
    ];
  }
  return merged;
}

function containsEqual(values: unknown[], value: unknown): boolean {
  const text = JSON.stringify(value);
  return values.some((v) => JSON.stringify(v) === text);
}
