import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { seededRandom } from '../../domain/hash-seed.ts';
import { SchemaCompiler } from '../../json/schema-compiler.ts';
import { sampleFromSchema } from './sample-from-schema.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

function assertSatisfies(schema: Record<string, unknown>, seed = 1): void {
  const value = sampleFromSchema(schema, seededRandom(seed));
  const validate = ajv.compile(schema);
  assert.ok(
    validate(value),
    `${JSON.stringify(value)} fails ${JSON.stringify(schema)}: ${JSON.stringify(validate.errors)}`,
  );
}

/** Arbitrary structured-output schemas of the kinds models are asked for. */
const leaf = fc.oneof(
  fc.record(
    {
      type: fc.constant('string'),
      minLength: fc.nat(20),
      format: fc.constantFrom(undefined, 'email', 'date-time', 'uuid', 'uri'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('integer'),
      minimum: fc.integer({ min: -50, max: 50 }),
      maximum: fc.integer({ min: 51, max: 200 }),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    { type: fc.constant('number'), exclusiveMinimum: fc.integer({ min: -5, max: 5 }) },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('boolean') }),
  fc.record({ enum: fc.uniqueArray(fc.oneof(fc.string(), fc.integer()), { minLength: 1, maxLength: 4 }) }),
  fc.record({ const: fc.jsonValue() }),
  fc.record({ type: fc.constant(['string', 'null']) }),
);
const schemaArb = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, tie('object'), tie('array')),
  object: fc
    .dictionary(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/), tie('node'), { maxKeys: 5 })
    .chain((properties) =>
      fc.record({
        type: fc.constant('object'),
        properties: fc.constant(properties),
        required: fc.subarray(Object.keys(properties)),
        additionalProperties: fc.constant(false),
      }),
    ),
  array: fc.record({ type: fc.constant('array'), items: tie('node'), minItems: fc.nat(3) }),
}));

describe('sampleFromSchema', () => {
  it('satisfies arbitrary structured-output schemas (property)', () => {
    fc.assert(
      fc.property(schemaArb.object, fc.nat(), (schema, seed) =>
        assertSatisfies(schema as Record<string, unknown>, seed),
      ),
      { numRuns: 300 },
    );
  });

  it('resolves local $ref and $defs, allOf, anyOf, oneOf and prefixItems', () => {
    assertSatisfies({
      $defs: {
        point: {
          type: 'object',
          properties: { x: { type: 'number' }, y: { type: 'number' } },
          required: ['x', 'y'],
        },
      },
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/point' },
        b: {
          allOf: [
            { type: 'object', properties: { p: { type: 'string' } }, required: ['p'] },
            { required: ['q'], properties: { q: { type: 'integer', multipleOf: 7, minimum: 10 } } },
          ],
        },
        c: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'number' }] },
        d: { oneOf: [{ type: 'integer', minimum: 3, maximum: 3 }, { type: 'string' }] },
        e: { type: 'array', prefixItems: [{ const: 'x' }, { type: 'boolean' }], minItems: 2 },
        f: { type: 'array', items: { enum: [1, 2, 3] }, uniqueItems: true, minItems: 2 },
      },
      required: ['a', 'b', 'c', 'd', 'e', 'f'],
    });
  });

  it('satisfies draft-07 style definitions and exclusive bounds', () => {
    assertSatisfies({
      definitions: { name: { type: 'string', minLength: 3, maxLength: 5 } },
      type: 'object',
      properties: {
        n: { $ref: '#/definitions/name' },
        x: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      },
      required: ['n', 'x'],
    });
  });
});

/** The gateway's own compiler: what it accepts, the simulated answer must satisfy. */
const gateway = new SchemaCompiler({
  maxAttempts: 3,
  maxSchemaBytes: 64 * 1024,
  maxSchemaDepth: 48,
  schemaCacheSize: 10,
});

function assertGatewayAccepts(schema: Record<string, unknown>, seed: number): void {
  let compiled: ReturnType<SchemaCompiler['compile']>;
  try {
    compiled = gateway.compile(schema);
  } catch {
    return; // refused with a 400: nothing to answer
  }
  const value = sampleFromSchema(schema, seededRandom(seed));
  assert.deepEqual(compiled.validate(value), [], `${JSON.stringify(value)} fails ${JSON.stringify(schema)}`);
}

const PATTERNS = [
  '^[A-Z]{3}-\\d{4}$',
  '^[a-z]+(-[a-z]+)*$',
  '\\d',
  '^(a+)+$',
  '^([a-z ]|[a-z ])*X$',
  '^#[0-9a-fA-F]{6}$',
  'é|ü',
  '^\\S+@\\S+$',
];
const richLeaf = fc.oneof(
  fc.record({ type: fc.constant('string'), pattern: fc.constantFrom(...PATTERNS) }),
  fc.record(
    { type: fc.constant('string'), minLength: fc.nat(30), maxLength: fc.integer({ min: 30, max: 60 }) },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constantFrom('number', 'integer'),
      multipleOf: fc.constantFrom(0.1, 0.01, 2.5, 3, 7),
      minimum: fc.integer({ min: -100, max: 100 }),
      exclusiveMaximum: fc.integer({ min: 101, max: 500 }),
    },
    { requiredKeys: ['type', 'multipleOf'] },
  ),
  fc.record({
    type: fc.constant('string'),
    format: fc.constantFrom(
      'email',
      'date',
      'time',
      'ipv4',
      'ipv6',
      'hostname',
      'uuid',
      'uri',
      'duration',
      'json-pointer',
    ),
  }),
  fc.record({ const: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({
    enum: fc.uniqueArray(fc.jsonValue({ maxDepth: 1 }), {
      minLength: 1,
      maxLength: 4,
      selector: (v) => JSON.stringify(v),
    }),
  }),
);
const richSchema = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    richLeaf,
    tie('object'),
    tie('array'),
    tie('combined'),
    tie('reference'),
  ),
  object: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), tie('node'), { maxKeys: 4 }).chain((properties) =>
    fc.record({
      type: fc.constant('object'),
      properties: fc.constant(properties),
      required: fc.subarray(Object.keys(properties)),
      minProperties: fc.nat(Object.keys(properties).length),
    }),
  ),
  array: fc.record(
    {
      type: fc.constant('array'),
      items: tie('node'),
      minItems: fc.nat(4),
      maxItems: fc.integer({ min: 4, max: 6 }),
    },
    { requiredKeys: ['type', 'items'] },
  ),
  // oneOf branches of distinct types, so its "exactly one" holds for any branch; allOf
  // of parts that tighten one another.
  combined: fc.oneof(
    fc.record({ anyOf: fc.tuple(tie('node'), fc.record({ type: fc.constant('null') })) }),
    fc.record({
      oneOf: fc.shuffledSubarray(
        [
          { type: 'boolean' },
          { type: 'null' },
          { type: 'string', minLength: 2 },
          { type: 'array', minItems: 1 },
        ],
        { minLength: 1 },
      ),
    }),
    fc.record({
      allOf: fc.tuple(
        fc.record({ type: fc.constant('string'), minLength: fc.nat(5) }),
        fc.record({ maxLength: fc.integer({ min: 5, max: 9 }) }),
        fc.record({ minLength: fc.nat(4) }),
      ),
    }),
  ),
  reference: fc.constant({ $ref: '#/$defs/item' }),
}));
/** A root whose $defs hold a recursive item: optional references to itself, and a required base. */
const withDefs = richSchema.object.map((root) => ({
  ...(root as Record<string, unknown>),
  $defs: {
    item: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1 },
        next: { $ref: '#/$defs/item' },
        children: { type: 'array', items: { $ref: '#/$defs/item' } },
      },
      required: ['name'],
    },
  },
}));

describe('sampleFromSchema on what the gateway accepts', () => {
  it('satisfies patterns, formats, multipleOf, const, enum, combinators and recursive $ref (property)', () => {
    fc.assert(
      fc.property(withDefs, fc.nat(), (schema, seed) => assertGatewayAccepts(schema, seed)),
      { numRuns: 300 },
    );
  });

  it('answers a recursive fan-out of optional references with a small value, quickly', () => {
    const fanOut = {
      $defs: {
        n: {
          type: 'object',
          properties: { a: { $ref: '#/$defs/n' }, b: { $ref: '#/$defs/n' }, c: { $ref: '#/$defs/n' } },
        },
      },
      $ref: '#/$defs/n',
    };
    const start = performance.now();
    assertGatewayAccepts(fanOut, 1);
    assert.ok(JSON.stringify(sampleFromSchema(fanOut, seededRandom(1))).length < 100_000);
    assert.ok(performance.now() - start < 500);
  });

  it('builds the required minimum in linear time (minLength, minItems, minProperties at their caps)', () => {
    const start = performance.now();
    assertGatewayAccepts({ type: 'string', minLength: 10_000 }, 1);
    assertGatewayAccepts({ type: 'object', minProperties: 1000 }, 1);
    assertGatewayAccepts({ type: 'array', minItems: 1000, items: { type: 'string', minLength: 5 } }, 1);
    assert.ok(performance.now() - start < 500);
  });
});
