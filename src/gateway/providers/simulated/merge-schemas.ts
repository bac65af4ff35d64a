import type { LocalReferences } from '../../json/local-references.ts';

type Schema = Record<string, unknown> | boolean;

const LOWER_BOUNDS = new Set([
  'minimum',
  'exclusiveMinimum',
  'minLength',
  'minItems',
  'minProperties',
  'minContains',
]);
const UPPER_BOUNDS = new Set([
  'maximum',
  'exclusiveMaximum',
  'maxLength',
  'maxItems',
  'maxProperties',
  'maxContains',
]);

/**
 * One schema that asks for what both ask for, as far as the sampler needs: bounds tighten,
 * required names add up, types intersect, and a property in both gets both schemas (allOf).
 * Keywords it cannot combine (two different patterns) keep the later one.
 */
export function mergeSchemas(a: Schema, b: Schema, references: LocalReferences): Schema {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  const right = dereference(b, references);
  const merged: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(right)) {
    const mine = merged[key];
    if (typeof mine === 'number' && typeof value === 'number' && LOWER_BOUNDS.has(key))
      merged[key] = Math.max(mine, value);
    else if (typeof mine === 'number' && typeof value === 'number' && UPPER_BOUNDS.has(key))
      merged[key] = Math.min(mine, value);
    else if (key === 'required' && Array.isArray(mine) && Array.isArray(value))
      merged.required = [...new Set([...mine, ...value])];
    else if (key === 'type' && mine !== undefined) merged.type = intersectTypes(mine, value);
    else if (key === 'properties' && typeof mine === 'object' && mine !== null)
      merged.properties = mergeProperties(mine as Record<string, Schema>, value as Record<string, Schema>);
    else merged[key] = value;
  }
  return merged;
}

/** A schema's `$ref` resolved and merged with its siblings; schemas without one unchanged. */
export function dereference(
  schema: Record<string, unknown>,
  references: LocalReferences,
): Record<string, unknown> {
  if (typeof schema.$ref !== 'string') return schema;
  const target = references.resolve(schema.$ref);
  const { $ref: _ref, ...rest } = schema;
  if (target === true || target === undefined) return rest;
  if (typeof target !== 'object' || target === null) return { ...rest, not: {} };
  return mergeSchemas(rest, target as Record<string, unknown>, references) as Record<string, unknown>;
}

function intersectTypes(a: unknown, b: unknown): unknown {
  const left = Array.isArray(a) ? a : [a];
  const right = new Set(Array.isArray(b) ? b : [b]);
  // An integer is a number: "number" and "integer" intersect to "integer".
  const both = left.flatMap((type) =>
    right.has(type)
      ? [type]
      : (type === 'number' && right.has('integer')) || (type === 'integer' && right.has('number'))
        ? ['integer']
        : [],
  );
  return both.length === 1 ? both[0] : both;
}

function mergeProperties(a: Record<string, Schema>, b: Record<string, Schema>): Record<string, Schema> {
  const merged: Record<string, Schema> = { ...a };
  for (const [name, schema] of Object.entries(b)) {
    const mine = merged[name];
    merged[name] = mine === undefined ? schema : { allOf: [mine, schema] };
  }
  return merged;
}
