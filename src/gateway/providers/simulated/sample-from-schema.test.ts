import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { seededRandom } from '../../domain/hash-seed.ts';
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
