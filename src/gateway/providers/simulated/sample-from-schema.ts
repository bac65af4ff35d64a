/**
 * Builds a JSON value that satisfies a JSON Schema (2020-12 or draft-07), for the simulated
 * provider's /v1/json answers: types, properties, required, additionalProperties,
 * patternProperties-free names, items and prefixItems, min/max counts, enum, const, numeric bounds
 * and multipleOf, lengths, formats, `pattern` (drawn from the pattern, checked with RE2), local
 * `$ref` and anchors, allOf, anyOf and oneOf. `not`, `if`/`then`/`else`, `propertyNames` and
 * `dependentSchemas` are not honoured: such an answer may fail validation, and the gateway's
 * re-ask path then reports it honestly.
 *
 * Bounded: it builds the smallest instance (see SmallestInstance) plus a few optional parts while
 * it has built fewer than GENEROUS_VALUES values, so its time, depth and output stay bounded for
 * any schema the gateway accepts (whose smallest instance is at most MAX_REQUIRED_VALUES values).
 */
import { LocalReferences } from '../../json/local-references.ts';
import { MAX_REQUIRED_VALUES } from '../../json/schema-limits.ts';
import { SmallestInstance, typesOf } from '../../json/smallest-instance.ts';
import { dereference, mergeSchemas } from './merge-schemas.ts';
import { sampleNumber } from './sample-number.ts';
import { sampleString } from './sample-string.ts';

type Schema = Record<string, unknown> | boolean;

/**
 * Optional properties and a second array item are added only while fewer values than this are
 * built and the answer is shallower than GENEROUS_DEPTH: enough to look like an answer, and
 * recursion through optional references stops early.
 */
const GENEROUS_VALUES = 200;
const GENEROUS_DEPTH = 6;

/** Optional parts are added only when their smallest instance is this small. */
const SMALL_OPTIONAL_VALUES = 20;

/**
 * A hard stop on nesting, whatever the schema: past it the answer is `null`. Accepted schemas
 * need at most MAX_REQUIRED_VALUES values, but a chain of required references can nest that deep
 * only within 64 KiB of schema, which holds no more than about a thousand definitions.
 */
const MAX_SAMPLE_DEPTH = 1000;

/** Resamples of an array item that must differ from the ones before (uniqueItems). */
const UNIQUE_TRIES = 8;

export function sampleFromSchema(root: Schema, pick: () => number): unknown {
  return new Sampler(root, pick).sample(root, 0);
}

class Sampler {
  readonly #references: LocalReferences;
  readonly #smallest: SmallestInstance;
  readonly #pick: () => number;
  #built = 0;

  constructor(root: Schema, pick: () => number) {
    this.#references = new LocalReferences(root);
    this.#smallest = new SmallestInstance(this.#references, MAX_REQUIRED_VALUES + 1);
    this.#pick = pick;
  }

  #generous(depth: number): boolean {
    return this.#built < GENEROUS_VALUES && depth < GENEROUS_DEPTH;
  }

  sample(input: Schema, depth: number): unknown {
    if (input === true) return this.#leaf('simulated');
    if (input === false || depth > MAX_SAMPLE_DEPTH) return null;
    const schema = this.#flatten(input);
    if (schema === false) return null;
    if (schema === true) return this.#leaf('simulated');
    if ('const' in schema) return this.#leaf(schema.const);
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      return this.#leaf(schema.enum[Math.floor(this.#pick() * schema.enum.length)]);
    }
    switch (this.#chooseType(schema, depth)) {
      case 'object':
        return this.#object(schema, depth);
      case 'array':
        return this.#array(schema, depth);
      case 'string':
        return this.#leaf(sampleString(schema, this.#pick));
      case 'integer':
        return this.#leaf(sampleNumber(schema, true));
      case 'number':
        return this.#leaf(sampleNumber(schema, false));
      case 'boolean':
        return this.#leaf(this.#pick() < 0.5);
      default:
        return this.#leaf(null);
    }
  }

  #leaf<T>(value: T): T {
    this.#built++;
    return value;
  }

  /**
   * One schema without $ref, allOf, anyOf or oneOf. anyOf and oneOf take the branch with the
   * smallest instance (the first of equals), which also ends recursion through them.
   */
  #flatten(input: Schema): Schema {
    let schema: Schema = input;
    // Each step removes one combinator or reference; in-place cycles were refused by the
    // gateway, and this bound keeps a schema that was not checked from looping.
    for (let step = 0; step < MAX_SAMPLE_DEPTH && typeof schema === 'object'; step++) {
      if (typeof schema.$ref === 'string') {
        schema = dereference(schema, this.#references);
        continue;
      }
      if (Array.isArray(schema.allOf)) {
        const { allOf, ...rest } = schema;
        schema = (allOf as Schema[]).reduce<Schema>(
          (merged, part) => mergeSchemas(merged, part, this.#references),
          rest,
        );
        continue;
      }
      const key = Array.isArray(schema.anyOf) ? 'anyOf' : Array.isArray(schema.oneOf) ? 'oneOf' : undefined;
      if (key === undefined) return schema;
      const { [key]: branches, ...rest } = schema;
      schema = mergeSchemas(rest, this.#smallestOf(branches as Schema[]), this.#references);
    }
    return schema;
  }

  #smallestOf(branches: readonly Schema[]): Schema {
    let best: Schema = branches[0] ?? true;
    for (const branch of branches) if (this.#smallest.of(branch) < this.#smallest.of(best)) best = branch;
    return best;
  }

  #chooseType(schema: Record<string, unknown>, depth: number): string | undefined {
    const types = typesOf(schema);
    if (types.length <= 1) return types[0];
    // Several allowed: a non-null one while generous (a more useful answer), else the cheapest.
    const nonNull = types.find((type) => type !== 'null');
    if (
      this.#generous(depth) &&
      nonNull !== undefined &&
      this.#smallest.of({ ...schema, type: nonNull }) <= SMALL_OPTIONAL_VALUES
    )
      return nonNull;
    return types.includes('null') ? 'null' : types.includes('boolean') ? 'boolean' : nonNull;
  }

  #object(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
    this.#built++;
    const properties = (
      typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {}
    ) as Record<string, Schema>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const additional = (schema.additionalProperties ?? true) as Schema;
    const result: Record<string, unknown> = {};
    for (const [name, propertySchema] of Object.entries(properties)) {
      const wanted =
        required.has(name) ||
        (this.#generous(depth) && this.#smallest.of(propertySchema) <= SMALL_OPTIONAL_VALUES);
      if (wanted) result[name] = this.sample(propertySchema, depth + 1);
    }
    for (const name of required) {
      if (!Object.hasOwn(result, name)) result[name] = this.sample(additional, depth + 1);
    }
    const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
    let count = Object.keys(result).length;
    for (let index = 0; count < minProperties; index++) {
      const name = `field${index}`;
      if (Object.hasOwn(result, name)) continue;
      result[name] = this.sample(additional, depth + 1);
      count++;
    }
    return result;
  }

  #array(schema: Record<string, unknown>, depth: number): unknown[] {
    this.#built++;
    const prefix = (
      Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : []
    ) as Schema[];
    const rest = (
      Array.isArray(schema.items) ? (schema.additionalItems ?? true) : (schema.items ?? true)
    ) as Schema;
    const minContains =
      schema.contains === undefined ? 0 : typeof schema.minContains === 'number' ? schema.minContains : 1;
    const min = Math.max(typeof schema.minItems === 'number' ? schema.minItems : 0, minContains);
    const max = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
    const itemSchema = (index: number): Schema => (index < prefix.length ? (prefix[index] as Schema) : rest);
    // While generous, one or two items even when none are required: answers look like answers.
    let length = min;
    if (this.#generous(depth) && this.#smallest.of(rest) <= SMALL_OPTIONAL_VALUES)
      length = Math.max(min, Math.min(2, max));
    const result: unknown[] = [];
    const seen = new Set<string>();
    for (let index = 0; index < length; index++) {
      let value = this.sample(itemSchema(index), depth + 1);
      if (schema.uniqueItems === true) {
        for (let tries = 0; tries < UNIQUE_TRIES && seen.has(JSON.stringify(value)); tries++) {
          value = this.sample(itemSchema(index), depth + 1);
        }
        if (seen.has(JSON.stringify(value))) {
          if (index >= min) break;
        }
        seen.add(JSON.stringify(value));
      }
      result.push(value);
    }
    if (schema.contains !== undefined && minContains > 0 && result.length > 0) {
      // Items that must match `contains`: the first minContains honour both item and contains.
      for (let index = 0; index < Math.min(minContains, result.length); index++) {
        result[index] = this.sample(
          mergeSchemas(itemSchema(index), schema.contains as Schema, this.#references),
          depth + 1,
        );
      }
    }
    return result;
  }
}
