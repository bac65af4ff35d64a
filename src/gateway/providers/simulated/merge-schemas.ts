import type { LocalReferences } from '../../json/local-references.ts';
import { matcherFor } from './pattern-cache.ts';

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
  'unevaluatedItems',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
]);

/**
 * Where a merged schema keeps the `contains` (with its min/maxContains) of further parts: two
 * `contains` are two requirements on different items, not one on the same item.
 */
export const EXTRA_CONTAINS = 'x-sampler-contains';
const CONTAINS_KEYS = new Set(['contains', 'minContains', 'maxContains']);

/** Where a merged schema keeps the further `pattern`s of its parts: a string must match them all. */
export const EXTRA_PATTERNS = 'x-sampler-patterns';

const ITEM_KEYS = new Set(['items', 'prefixItems', 'additionalItems']);

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
  const separateContains =
    'contains' in merged &&
    'contains' in right &&
    JSON.stringify(merged.contains) !== JSON.stringify(right.contains);
  if (separateContains) {
    const extra = {
      contains: right.contains,
      minContains: right.minContains,
      maxContains: right.maxContains,
    };
    merged[EXTRA_CONTAINS] = [...((merged[EXTRA_CONTAINS] as unknown[] | undefined) ?? []), extra];
  }
  mergeItems(merged, a, right, (x, y) => mergeSchemas(x, y, references, record));
  for (const [key, value] of Object.entries(right)) {
    const mine = merged[key];
    if (ITEM_KEYS.has(key)) continue;
    if (separateContains && CONTAINS_KEYS.has(key)) continue;
    if (key === 'pattern' && typeof mine === 'string' && mine !== value) {
      merged[EXTRA_PATTERNS] = [...((merged[EXTRA_PATTERNS] as unknown[] | undefined) ?? []), value];
      continue;
    }
    if ((key === EXTRA_CONTAINS || key === EXTRA_PATTERNS) && Array.isArray(mine) && Array.isArray(value)) {
      merged[key] = [...mine, ...value];
      continue;
    }
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
    else if (key === 'multipleOf' && typeof mine === 'number' && typeof value === 'number')
      merged.multipleOf = commonMultiple(mine, value);
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
  constrainUnlisted(merged, a, right, record);
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

/**
 * additionalProperties and patternProperties speak of the names their own schema object does not
 * list: once two schemas' properties are merged, a name only the other one lists must still
 * satisfy the matching patterns' schemas, or else additionalProperties.
 */
function constrainUnlisted(
  merged: Record<string, unknown>,
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  record?: MergeRecorder,
): void {
  const properties = { ...((merged.properties as Record<string, Schema> | undefined) ?? {}) };
  let changed = false;
  for (const [side, other] of [
    [a, b],
    [b, a],
  ] as const) {
    const additional = side.additionalProperties as Schema | undefined;
    const patterns = Object.entries((side.patternProperties as Record<string, Schema> | undefined) ?? {});
    if ((additional === undefined || additional === true) && patterns.length === 0) continue;
    const listed = (side.properties as Record<string, Schema> | undefined) ?? {};
    for (const name of Object.keys((other.properties as Record<string, Schema> | undefined) ?? {})) {
      if (Object.hasOwn(listed, name)) continue;
      const matching = patterns
        .filter(([pattern]) => matcherFor(pattern).test(name))
        .map(([, schema]) => schema);
      const extra = matching.length > 0 ? matching : additional === undefined ? [] : [additional];
      if (extra.length === 0) continue;
      const both = { allOf: [properties[name] as Schema, ...extra] };
      record?.(both, both.allOf);
      properties[name] = both;
      changed = true;
    }
  }
  if (changed) merged.properties = properties;
}

interface ItemsForm {
  prefix: Schema[] | undefined;
  rest: Schema | undefined;
}

/** prefixItems + items (2020-12) or items array + additionalItems (draft-07), one shape. */
function itemsForm(schema: Record<string, unknown>): ItemsForm {
  if (Array.isArray(schema.items))
    return { prefix: schema.items as Schema[], rest: schema.additionalItems as Schema | undefined };
  return {
    prefix: schema.prefixItems as Schema[] | undefined,
    rest: schema.items as Schema | undefined,
  };
}

/**
 * Item keywords of both, position by position: each position gets the schemas both give it
 * (a prefix schema where one has one, else that one's schema for the rest), and the rest gets
 * both rests. Written back in the left one's dialect.
 */
function mergeItems(
  merged: Record<string, unknown>,
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  merge: (x: Schema, y: Schema) => Schema,
): void {
  const left = itemsForm(a);
  const right = itemsForm(b);
  if (
    left.prefix === undefined &&
    left.rest === undefined &&
    right.prefix === undefined &&
    right.rest === undefined
  )
    return;
  const length = Math.max(left.prefix?.length ?? 0, right.prefix?.length ?? 0);
  const at = (form: ItemsForm, index: number): Schema =>
    form.prefix !== undefined && index < form.prefix.length
      ? (form.prefix[index] as Schema)
      : (form.rest ?? true);
  const prefix = Array.from({ length }, (_, index) => merge(at(left, index), at(right, index)));
  const rest = merge(left.rest ?? true, right.rest ?? true);
  delete merged.items;
  delete merged.prefixItems;
  delete merged.additionalItems;
  const draft07 = Array.isArray(a.items) || Array.isArray(b.items);
  if (draft07) Object.assign(merged, length > 0 ? { items: prefix, additionalItems: rest } : { items: rest });
  else Object.assign(merged, length > 0 ? { prefixItems: prefix, items: rest } : { items: rest });
}

/**
 * A step whose multiples are multiples of both: the larger where it is a multiple of the smaller
 * (3 and 0.25), the least common multiple of two integers; else the later one, and checks decide.
 */
function commonMultiple(a: number, b: number): number {
  const [small, large] = a < b ? [a, b] : [b, a];
  if (Number.isInteger(large / small)) return large;
  if (Number.isInteger(a) && Number.isInteger(b)) {
    let [x, y] = [a, b];
    while (y !== 0) [x, y] = [y, x % y];
    return (a / x) * b;
  }
  return b;
}
