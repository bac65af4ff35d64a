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

/** Keywords whose subschema applies to the same child in both: the merge asks for both. */
const CHILD_SCHEMAS = new Set([
  'items',
  'additionalItems',
  'unevaluatedItems',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'contains',
]);

/** Keywords that cannot be combined into one: a second one is kept beside, in `allOf`. */
const SIDE_BY_SIDE = new Set(['anyOf', 'oneOf']);

/** Called with each merged schema and its two parts, so that checks can go back to the originals. */
export type MergeRecorder = (merged: Schema, parts: readonly Schema[]) => void;

/**
 * One schema that asks for what both ask for, as far as the sampler needs: bounds tighten,
 * required names add up, types and enums intersect, subschemas of the same child merge, and
 * combinators both carry are kept side by side under `allOf` (which the sampler flattens again).
 * Keywords it cannot combine (two different patterns) keep the later one; the sampler's checks
 * against the original subschemas catch what that loses.
 */
export function mergeSchemas(
  a: Schema,
  b: Schema,
  references: LocalReferences,
  record?: MergeRecorder,
): Schema {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  const right = dereference(b, references, record);
  const merged: Record<string, unknown> = { ...a };
  const aside: Schema[] = [];
  for (const [key, value] of Object.entries(right)) {
    const mine = merged[key];
    // `then` and `else` travel with their `if`, below.
    if (key === 'then' || key === 'else') continue;
    if (key === 'if') {
      const condition = conditional(value, right.then, right.else);
      if (mine === undefined) Object.assign(merged, condition);
      else aside.push(condition);
    } else if (mine === undefined) merged[key] = value;
    else if (typeof mine === 'number' && typeof value === 'number' && LOWER_BOUNDS.has(key))
      merged[key] = Math.max(mine, value);
    else if (typeof mine === 'number' && typeof value === 'number' && UPPER_BOUNDS.has(key))
      merged[key] = Math.min(mine, value);
    else if (key === 'required' && Array.isArray(mine) && Array.isArray(value))
      merged.required = [...new Set([...mine, ...value])];
    else if (key === 'enum' && Array.isArray(mine) && Array.isArray(value)) {
      const theirs = new Set(value.map((item) => JSON.stringify(item)));
      merged.enum = mine.filter((item) => theirs.has(JSON.stringify(item)));
    } else if (key === 'type') merged.type = intersectTypes(mine, value);
    else if (key === 'properties' && typeof mine === 'object' && mine !== null)
      merged.properties = mergeProperties(
        mine as Record<string, Schema>,
        value as Record<string, Schema>,
        record,
      );
    else if (CHILD_SCHEMAS.has(key) && isSchema(mine) && isSchema(value))
      merged[key] = mergeSchemas(mine, value, references, record);
    else if (key === 'allOf' && Array.isArray(mine) && Array.isArray(value))
      merged.allOf = [...mine, ...value];
    else if (SIDE_BY_SIDE.has(key)) aside.push({ [key]: value });
    // Neither A nor B: not (A or B).
    else if (key === 'not') merged.not = { anyOf: [mine, value] };
    else merged[key] = value;
  }
  if (aside.length > 0) merged.allOf = [...(Array.isArray(merged.allOf) ? merged.allOf : []), ...aside];
  record?.(merged, [a, b]);
  return merged;
}

/** A schema's `$ref` resolved and merged with its siblings; schemas without one unchanged. */
export function dereference(
  schema: Record<string, unknown>,
  references: LocalReferences,
  record?: MergeRecorder,
): Record<string, unknown> {
  if (typeof schema.$ref !== 'string') return schema;
  const target = references.resolve(schema.$ref);
  const { $ref: _ref, ...rest } = schema;
  record?.(rest, [schema]);
  if (target === true || target === undefined) return rest;
  if (typeof target !== 'object' || target === null) return { not: {} };
  return mergeSchemas(rest, target as Record<string, unknown>, references, record) as Record<string, unknown>;
}

/** `{if, then, else}`, built from entries: a literal `then` key reads as a thenable to linters. */
function conditional(condition: unknown, onTrue: unknown, onFalse: unknown): Record<string, unknown> {
  return Object.fromEntries([
    ['if', condition],
    ['then', onTrue ?? true],
    ['else', onFalse ?? true],
  ]);
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
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

function mergeProperties(
  a: Record<string, Schema>,
  b: Record<string, Schema>,
  record?: MergeRecorder,
): Record<string, Schema> {
  const merged: Record<string, Schema> = { ...a };
  for (const [name, schema] of Object.entries(b)) {
    const mine = merged[name];
    if (mine === undefined) merged[name] = schema;
    else {
      const both = { allOf: [mine, schema] };
      record?.(both, [mine, schema]);
      merged[name] = both;
    }
  }
  return merged;
}
