import type { RE2JS } from 're2js';
import { matcherFor } from './pattern-cache.ts';
import {
  asRecord,
  numberOr,
  type SampleContext,
  type Schema,
  SMALL_OPTIONAL_VALUES,
} from './sample-context.ts';
import { sampleString } from './sample-string.ts';

const STRING_KEYWORDS = new Set([
  'type',
  'pattern',
  'minLength',
  'maxLength',
  'format',
  'title',
  'description',
]);

/** Names drawn from propertyNames or a patternProperties pattern before giving up on one more. */
const NAME_TRIES = 8;

/**
 * An object for a flattened schema: properties, required, additionalProperties,
 * unevaluatedProperties, patternProperties, propertyNames, min/maxProperties, and the
 * dependencies (dependentRequired, dependentSchemas, draft-07's dependencies). A property that
 * would trigger a dependency is added only when required, so a dependency is followed only where
 * it must be: its required names join the object and its schema is merged into the object's.
 * Attempt 0 adds small optional properties while generous; odd attempts add none.
 */
export function sampleObject(
  context: SampleContext,
  input: Record<string, unknown>,
  depth: number,
  attempt: number,
): Record<string, unknown> {
  const dependents = readDependencies(input);
  const present = new Set<string>(Array.isArray(input.required) ? (input.required as string[]) : []);
  const followed = new Set<string>();
  let schema = followDependencies(context, input, dependents, present, followed);
  let shape = new ObjectShape(context, schema);
  const maxProperties = numberOr(schema.maxProperties, Number.POSITIVE_INFINITY);
  const optional = Object.keys(shape.properties).filter((name) => !present.has(name) && shape.allows(name));
  // Optional names that trigger a dependency come last: only minProperties may need them.
  optional.sort((a, b) => Number(dependents.has(a)) - Number(dependents.has(b)));
  if (attempt % 2 === 0 && context.generous(depth)) {
    for (const name of optional) {
      if (present.size >= maxProperties || dependents.has(name)) break;
      if (context.smallest(shape.schemaFor(name)) <= SMALL_OPTIONAL_VALUES) present.add(name);
    }
  }
  const minProperties = numberOr(schema.minProperties, 0);
  for (const name of optional) {
    if (present.size >= minProperties) break;
    present.add(name);
  }
  if (followed.size < dependents.size) {
    schema = followDependencies(context, schema, dependents, present, followed);
    shape = new ObjectShape(context, schema);
  }
  // Every third attempt, one unlisted property more where the schema allows one (an empty
  // object may be what a `not` or an `if` rules out).
  const wanted =
    attempt % 3 === 2 && present.size < maxProperties
      ? Math.max(minProperties, present.size + 1)
      : minProperties;
  for (let index = 0; present.size < wanted && index < wanted * NAME_TRIES; index++) {
    const name = shape.inventName(index, present);
    if (name !== undefined) present.add(name);
  }
  const result: Record<string, unknown> = {};
  for (const name of present) result[name] = context.sample(shape.schemaFor(name), depth + 1);
  return result;
}

/**
 * Adds the names that present names depend on, and merges in their dependent schemas (whose
 * `required` names join too). Each round follows the names that joined in the one before;
 * bounded by how many dependencies there are.
 */
function followDependencies(
  context: SampleContext,
  input: Record<string, unknown>,
  dependents: ReadonlyMap<string, Dependent>,
  present: Set<string>,
  followed: Set<string>,
): Record<string, unknown> {
  let schema = input;
  for (let round = 0; round <= dependents.size; round++) {
    const before = present.size;
    for (const name of [...present]) {
      const dependent = dependents.get(name);
      if (dependent === undefined || followed.has(name)) continue;
      followed.add(name);
      for (const other of dependent.names) present.add(other);
      if (dependent.schema !== undefined)
        schema = context.merge(schema, dependent.schema) as Record<string, unknown>;
    }
    for (const name of Array.isArray(schema.required) ? (schema.required as string[]) : []) present.add(name);
    if (present.size === before) break;
  }
  return schema;
}

interface Dependent {
  names: string[];
  schema: Schema | undefined;
}

function readDependencies(schema: Record<string, unknown>): Map<string, Dependent> {
  const found = new Map<string, Dependent>();
  const add = (name: string, names: string[], dependentSchema: Schema | undefined): void => {
    const known = found.get(name) ?? { names: [], schema: undefined };
    known.names.push(...names);
    if (dependentSchema !== undefined) known.schema = dependentSchema;
    found.set(name, known);
  };
  for (const [name, value] of Object.entries(asRecord(schema.dependentRequired)))
    if (Array.isArray(value)) add(name, value as string[], undefined);
  for (const [name, value] of Object.entries(asRecord(schema.dependentSchemas)))
    add(name, [], value as Schema);
  // draft-07 spells both as `dependencies`: an array of names, or a schema.
  for (const [name, value] of Object.entries(asRecord(schema.dependencies))) {
    if (Array.isArray(value)) add(name, value as string[], undefined);
    else add(name, [], value as Schema);
  }
  return found;
}

/** Which schema each property name gets, and which names the object may have. */
class ObjectShape {
  readonly properties: Record<string, Schema>;
  readonly #context: SampleContext;
  readonly #patterns: { source: string; matcher: RE2JS; schema: Schema }[];
  readonly #additional: Schema;
  readonly #propertyNames: Schema | undefined;

  constructor(context: SampleContext, schema: Record<string, unknown>) {
    this.#context = context;
    this.properties = asRecord(schema.properties) as Record<string, Schema>;
    this.#patterns = Object.entries(asRecord(schema.patternProperties)).map(([source, patternSchema]) => ({
      source,
      matcher: matcherFor(source),
      schema: patternSchema as Schema,
    }));
    // unevaluatedProperties acts on names no other keyword evaluated: after flattening (allOf
    // merged into properties), that is what additionalProperties would cover.
    this.#additional = (schema.additionalProperties ?? schema.unevaluatedProperties ?? true) as Schema;
    this.#propertyNames = schema.propertyNames as Schema | undefined;
  }

  /** The property's schema: its own, every matching pattern's, or additionalProperties. */
  schemaFor(name: string): Schema {
    const parts: Schema[] = [];
    if (Object.hasOwn(this.properties, name)) parts.push(this.properties[name] as Schema);
    for (const pattern of this.#patterns) if (pattern.matcher.test(name)) parts.push(pattern.schema);
    if (parts.length === 0) return this.#additional;
    return parts.reduce((merged, part) => this.#context.merge(merged, part));
  }

  allows(name: string): boolean {
    return this.#propertyNames === undefined || this.#context.check(this.#propertyNames, name, true);
  }

  /** A new name the object may have (for minProperties), or undefined when this try found none. */
  inventName(index: number, taken: ReadonlySet<string>): string | undefined {
    let name: string;
    const names = this.#propertyNames;
    if (names !== undefined && index % 2 === 1) {
      // A plain string schema (the usual pattern or lengths) is drawn from directly: names are
      // drawn by the thousand, and the full sampler costs ten times as much per string.
      const plain = typeof names === 'object' && Object.keys(names).every((key) => STRING_KEYWORDS.has(key));
      name = plain
        ? sampleString(names, () => this.#context.pick(), index)
        : String(this.#context.sample(this.#context.merge({ type: 'string' }, names), 1, index));
    } else if (this.#additional !== false)
      name = index % 4 === 2 ? `field${index}` : `field${letters(index)}`;
    else {
      const pattern = this.#patterns[index % Math.max(1, this.#patterns.length)];
      if (pattern === undefined) return undefined;
      name = sampleString({ pattern: pattern.source }, () => this.#context.pick(), index);
    }
    if (taken.has(name) || !this.allows(name) || this.schemaFor(name) === false) return undefined;
    return name;
  }
}

/** The index in base 26 with letters a-z: names that plain-letter name patterns also accept. */
function letters(index: number): string {
  let text = '';
  for (let rest = index; ; rest = Math.floor(rest / 26) - 1) {
    text = String.fromCharCode(97 + (rest % 26)) + text;
    if (rest < 26) return text;
  }
}
