/**
 * Builds a JSON value that satisfies a JSON Schema (2020-12 or draft-07), for the simulated
 * provider's /v1/json answers.
 *
 * Correct by construction where it can be: types, properties and required, additional and
 * pattern properties, dependencies, items and prefixItems, counts, contains, uniqueItems, enum,
 * const, bounds and multipleOf, lengths, every ajv-formats format, `pattern` (drawn from the
 * pattern, checked with RE2), local `$ref` and anchors, allOf (merged), anyOf and oneOf (one
 * branch taken), if/then/else (one side taken). Checked where it cannot be: a subschema with any
 * keyword the construction may miss (`not`, oneOf's "exactly one", `if`, propertyNames, formats
 * with patterns...) has each candidate validated with the gateway's rules (SchemaChecker); a
 * rejected one is built again with other choices: another branch, the other side of `if`, other
 * words, numbers and lengths, no optional properties.
 *
 * Bounded: one build is the smallest instance (see SmallestInstance) plus a few optional parts
 * while fewer than GENEROUS_VALUES values are built; retries stop at NODE_ATTEMPTS per subschema
 * and, for the whole answer, at MAX_CHECKS checks or RETRY_VALUES values built. Deterministic:
 * every choice comes from `pick`, which the provider seeds from the request.
 */
import { LocalReferences } from '../../json/local-references.ts';
import { MAX_REQUIRED_VALUES } from '../../json/schema-limits.ts';
import { SmallestInstance, typesOf } from '../../json/smallest-instance.ts';
import { type FlattenContext, flattenSchema } from './flatten-schema.ts';
import { mergeSchemas } from './merge-schemas.ts';
import { sampleArray } from './sample-array.ts';
import { type SampleContext, type Schema, SMALL_OPTIONAL_VALUES } from './sample-context.ts';
import { sampleNumber } from './sample-number.ts';
import { sampleObject } from './sample-object.ts';
import { sampleString } from './sample-string.ts';
import { SchemaChecker } from './schema-checker.ts';

/**
 * Optional properties and a second array item are added only while fewer values than this are
 * built and the answer is shallower than GENEROUS_DEPTH: enough to look like an answer, and
 * recursion through optional references stops early.
 */
const GENEROUS_VALUES = 200;
const GENEROUS_DEPTH = 6;

/**
 * A hard stop on nesting, whatever the schema: past it the answer is `null`. Accepted schemas
 * need at most MAX_REQUIRED_VALUES values, but a chain of required references can nest that deep
 * only within 64 KiB of schema, which holds no more than about a thousand definitions.
 */
const MAX_SAMPLE_DEPTH = 1000;

/** Candidates tried for one subschema before the last one is given up with. */
const NODE_ATTEMPTS = 24;

/** Scalars drawn again within one attempt while the schema's `not` rejects them. */
const SCALAR_TRIES = 8;

/**
 * Checks per answer, and values built per answer past which nothing is retried: each check
 * validates a subtree (microseconds for a typical answer, about a millisecond for one of
 * MAX_REQUIRED_VALUES values), so an answer costs at most a few tens of milliseconds.
 */
const MAX_CHECKS = 400;
const RETRY_VALUES = 4 * MAX_REQUIRED_VALUES;

const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  '$anchor',
  '$id',
  '$schema',
  '$defs',
  'definitions',
]);

/** Keywords the construction always honours; a subschema with any other one is checked. */
const CONSTRUCTED = new Set([
  'type',
  'properties',
  'required',
  'items',
  'prefixItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'additionalProperties',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$schema',
  '$id',
  '$anchor',
  '$comment',
  '$defs',
  'definitions',
  // Built to fit, including with lengths: only a format beside a `pattern` is checked.
  'format',
  // Checked against the rest of their schema member by member (see #fromEnum).
  'enum',
  'const',
]);

export function sampleFromSchema(root: Schema, pick: () => number): unknown {
  return new Sampler(root, pick).sample(root, 0);
}

class Sampler implements SampleContext, FlattenContext {
  readonly #references: LocalReferences;
  readonly #smallest: SmallestInstance;
  readonly #checker: SchemaChecker;
  readonly #pick: () => number;
  #built = 0;
  #checks = 0;

  constructor(root: Schema, pick: () => number) {
    this.#references = new LocalReferences(root);
    this.#smallest = new SmallestInstance(this.#references, MAX_REQUIRED_VALUES + 1);
    this.#checker = new SchemaChecker(root, this.#references);
    this.#pick = pick;
  }

  pick(): number {
    return this.#pick();
  }

  generous(depth: number): boolean {
    return this.#built < GENEROUS_VALUES && depth < GENEROUS_DEPTH;
  }

  smallest(schema: Schema): number {
    return this.#smallest.of(schema);
  }

  merge(a: Schema, b: Schema): Schema {
    return mergeSchemas(a, b, this.#references, (merged, parts) => this.#checker.recordMerge(merged, parts));
  }

  resolve(ref: string): unknown {
    return this.#references.resolve(ref);
  }

  derive(derived: Schema, source: Schema): void {
    this.#checker.recordMerge(derived, [source]);
  }

  check(schema: Schema, value: unknown, assumed: boolean): boolean {
    if (this.#checks >= MAX_CHECKS) return assumed;
    this.#checks++;
    return this.#checker.check(schema, value);
  }

  sample(input: Schema, depth: number, firstAttempt = 0): unknown {
    if (input === true && firstAttempt === 0) return this.#leaf('simulated');
    if (input === true) return this.#build({}, depth, firstAttempt);
    if (input === false || depth > MAX_SAMPLE_DEPTH) return null;
    let value: unknown = null;
    for (let attempt = firstAttempt; attempt < firstAttempt + NODE_ATTEMPTS; attempt++) {
      const { schema, chose } = flattenSchema(input, this, attempt, MAX_SAMPLE_DEPTH);
      value = this.#avoidingNot(schema, depth, attempt);
      if (!chose && !needsCheck(schema) && !this.#checker.originsOf(input).some(needsCheck)) return value;
      // The whole answer's check is never skipped (at most NODE_ATTEMPTS of them): retries of
      // inner parts may have spent the budget, and a rebuilt answer may still pass.
      if (depth === 0 ? this.#checker.check(input, value) : this.check(input, value, true)) return value;
      if (this.#built >= RETRY_VALUES) return value;
    }
    return value;
  }

  /**
   * A candidate for the flattened schema; a scalar that its `not` rejects is drawn again right
   * away (a leaf is cheap to build and to check), with the attempts that follow this one.
   */
  #avoidingNot(schema: Schema, depth: number, attempt: number): unknown {
    let value = this.#build(schema, depth, attempt);
    if (typeof schema !== 'object' || schema.not === undefined) return value;
    for (
      let extra = 1;
      extra <= SCALAR_TRIES && isScalar(value) && this.#rejectedByNot(schema.not, value);
      extra++
    ) {
      if (this.#checks >= MAX_CHECKS) break;
      value = this.#build(schema, depth, attempt * SCALAR_TRIES + extra);
    }
    return value;
  }

  /**
   * Whether the value matches the `not` subschema, as far as the checker knows it: a merged `not`
   * is the anyOf of the originals (neither A nor B), each checked on its own.
   */
  #rejectedByNot(not: unknown, value: unknown): boolean {
    if (typeof not !== 'object' || not === null) return not === true;
    const record = not as Record<string, unknown>;
    const parts =
      this.#checker.originsOf(record).length === 0 && Array.isArray(record.anyOf)
        ? (record.anyOf as Schema[])
        : [record];
    return parts.some((part) => this.#checker.originsOf(part).length > 0 && this.check(part, value, false));
  }

  #build(schema: Schema, depth: number, attempt: number): unknown {
    if (schema === false) return null;
    if (schema === true) return this.#leaf('simulated');
    if ('const' in schema) return this.#leaf(schema.const);
    if (Array.isArray(schema.enum)) return this.#leaf(this.#fromEnum(schema, schema.enum));
    switch (this.#chooseType(schema, depth, attempt)) {
      case 'object':
        this.#built++;
        return sampleObject(this, schema, depth, attempt);
      case 'array':
        this.#built++;
        return sampleArray(this, schema, depth, attempt);
      case 'string':
        return this.#leaf(sampleString(schema, this.#pick, attempt));
      case 'integer':
        return this.#leaf(sampleNumber(schema, true, this.#pick, attempt));
      case 'number':
        return this.#leaf(sampleNumber(schema, false, this.#pick, attempt));
      case 'boolean':
        return this.#leaf(attempt === 0 ? this.#pick() < 0.5 : attempt % 2 === 0);
      default:
        return this.#leaf(null);
    }
  }

  /** A member of the enum that the rest of the schema also accepts, where one does. */
  #fromEnum(schema: Record<string, unknown>, members: readonly unknown[]): unknown {
    const { enum: _enum, ...rest } = schema;
    this.#checker.recordMerge(rest, [schema]);
    const accepted = constrains(rest)
      ? members.filter((member) => this.check(schema, member, true))
      : members;
    const choices = accepted.length > 0 ? accepted : members;
    return choices.length === 0 ? null : choices[Math.floor(this.#pick() * choices.length)];
  }

  #leaf<T>(value: T): T {
    this.#built++;
    return value;
  }

  #chooseType(schema: Record<string, unknown>, depth: number, attempt: number): string | undefined {
    const types = allowedTypes(schema);
    if (types.length <= 1) return types[0];
    if (attempt > 0) return types[Math.floor(this.#pick() * types.length)];
    // Several allowed: a non-null one while generous (a more useful answer), else the cheapest.
    const nonNull = types.find((type) => type !== 'null');
    const scalar = nonNull !== 'object' && nonNull !== 'array';
    if (
      this.generous(depth) &&
      nonNull !== undefined &&
      (scalar || this.#smallest.of(schema) <= SMALL_OPTIONAL_VALUES)
    )
      return nonNull;
    return types.includes('null') ? 'null' : types.includes('boolean') ? 'boolean' : nonNull;
  }
}

/** The schema's types, less those a `not: {type}` forbids (an integer is a number). */
function allowedTypes(schema: Record<string, unknown>): string[] {
  const types = typesOf(schema);
  const not = schema.not;
  if (typeof not !== 'object' || not === null || Object.keys(not).some((key) => key !== 'type')) return types;
  const forbidden = typesOf(not as Record<string, unknown>);
  return types.filter(
    (type) => !forbidden.includes(type) && !(type === 'integer' && forbidden.includes('number')),
  );
}

function isScalar(value: unknown): boolean {
  return typeof value !== 'object' || value === null;
}

function needsCheck(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  if ('format' in schema && 'pattern' in schema) return true;
  return Object.keys(schema).some((key) => !CONSTRUCTED.has(key));
}

/** Whether a schema asks for anything beyond annotations (an enum beside it must be filtered). */
function constrains(schema: Record<string, unknown>): boolean {
  return Object.keys(schema).some((key) => !ANNOTATIONS.has(key));
}
