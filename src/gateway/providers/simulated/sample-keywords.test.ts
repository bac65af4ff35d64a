import { describe, it } from 'node:test';
import { assertAnswers, conditional } from '../../../../test/helpers/sampler/answer-assertions.ts';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

const KEYWORDS: Record<string, Record<string, unknown>> = {
  'pattern (the issue: a zip code)': {
    type: 'object',
    properties: { zip: { type: 'string', pattern: '^[0-9]{5}$' } },
    required: ['zip'],
  },
  'pattern with lengths': { type: 'string', pattern: '^[a-z]+$', minLength: 12, maxLength: 14 },
  'minLength and maxLength': { type: 'string', minLength: 3, maxLength: 3 },
  'multipleOf on integers': { type: 'integer', multipleOf: 7, minimum: 50, maximum: 60 },
  'multipleOf on non-integers': {
    type: 'number',
    multipleOf: 0.25,
    exclusiveMinimum: 1,
    exclusiveMaximum: 1.5,
  },
  'multipleOf 0.01 on a number': { type: 'number', multipleOf: 0.01, minimum: 0.015, maximum: 0.03 },
  'exclusiveMinimum and exclusiveMaximum': { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.001 },
  'integer between exclusive bounds': { type: 'integer', exclusiveMinimum: 4, exclusiveMaximum: 6 },
  const: { const: { a: [1, 'x', null] } },
  enum: { enum: ['red', 'green', 3] },
  'enum filtered by type': { type: 'string', enum: [1, 2, 'three', null] },
  'enum filtered by minimum': { enum: [1, 5, 10], minimum: 6 },
  'oneOf with overlapping branches': { oneOf: [{ type: 'number' }, { type: 'integer' }] },
  'oneOf of objects told apart by required': {
    oneOf: [
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] },
    ],
  },
  'oneOf whose smallest branch is shadowed': {
    oneOf: [{ type: 'string' }, { type: 'string', maxLength: 100 }, { type: 'boolean' }],
  },
  anyOf: {
    anyOf: [
      { type: 'string', minLength: 2 },
      { type: 'integer', minimum: 100 },
    ],
  },
  'anyOf whose first branch is impossible': {
    anyOf: [{ type: 'string', minLength: 5, maxLength: 2 }, { type: 'boolean' }],
  },
  allOf: { allOf: [{ type: 'integer' }, { minimum: 10 }, { maximum: 10 }] },
  'allOf of two anyOf': {
    allOf: [
      { anyOf: [{ type: 'string' }, { type: 'null' }] },
      { anyOf: [{ type: 'null' }, { type: 'number' }] },
    ],
  },
  'not a type': { not: { type: ['string', 'number', 'object', 'array'] } },
  'not a const': { type: 'string', not: { const: 'simulated' } },
  'not an enum of integers': { type: 'integer', minimum: 0, maximum: 5, not: { enum: [0, 1, 2, 3, 4] } },
  'not a range': { type: 'number', not: { minimum: -1000 } },
  'not a required property': {
    type: 'object',
    properties: { a: { type: 'string' } },
    not: { required: ['a'] },
  },
  'not inside properties': {
    type: 'object',
    properties: { n: { type: 'integer', not: { multipleOf: 2 } }, s: { not: { type: 'string' } } },
    required: ['n', 's'],
  },
  'if/then': {
    type: 'object',
    properties: { kind: { enum: ['a', 'b'] }, size: { type: 'integer' } },
    required: ['kind'],
    ...conditional(
      { properties: { kind: { const: 'a' } } },
      { required: ['size'], properties: { size: { minimum: 10 } } },
    ),
  },
  'if/then/else with an impossible then': {
    type: 'integer',
    ...conditional({ minimum: 0 }, { const: 'never' }, { maximum: -5 }),
  },
  'if/else with an if every value meets': conditional(true, { type: 'boolean' }, { type: 'string' }),
  '$ref and $defs': { $defs: { name: { type: 'string', minLength: 4 } }, $ref: '#/$defs/name' },
  '$ref to an anchor': {
    $defs: { x: { $anchor: 'code', type: 'string', pattern: '^[A-Z]{2}$' } },
    $ref: '#code',
  },
  'recursive $ref': {
    $defs: {
      node: {
        type: 'object',
        properties: { next: { $ref: '#/$defs/node' }, v: { type: 'integer' } },
        required: ['v'],
      },
    },
    $ref: '#/$defs/node',
  },
  prefixItems: {
    type: 'array',
    prefixItems: [{ type: 'integer' }, { const: 'x' }],
    items: false,
    minItems: 2,
  },
  'additionalProperties false': {
    type: 'object',
    properties: { a: { type: 'string' } },
    additionalProperties: false,
    minProperties: 1,
  },
  'additionalProperties as a schema': {
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 3 },
    minProperties: 2,
  },
  dependentRequired: {
    type: 'object',
    properties: { card: { type: 'string' }, billing: { type: 'string' } },
    required: ['card'],
    dependentRequired: { card: ['billing'] },
  },
  'dependentRequired naming an unlisted property': {
    type: 'object',
    properties: { a: { type: 'integer' } },
    required: ['a'],
    dependentRequired: { a: ['b'] },
    additionalProperties: { type: 'boolean' },
  },
  dependentSchemas: {
    type: 'object',
    properties: { a: { type: 'integer' } },
    required: ['a'],
    dependentSchemas: { a: { properties: { b: { const: 1 } }, required: ['b'] } },
  },
  'optional dependentSchemas trigger': {
    type: 'object',
    properties: { a: { type: 'integer' }, b: { type: 'string' } },
    dependentSchemas: { a: { required: ['zz'], properties: { zz: false } } },
  },
  propertyNames: { type: 'object', propertyNames: { pattern: '^[A-Z][a-z]+$' }, minProperties: 3 },
  'propertyNames excluding optional properties': {
    type: 'object',
    properties: { bad_name: { type: 'string' }, Good: { type: 'string' } },
    propertyNames: { maxLength: 4 },
    minProperties: 1,
  },
  patternProperties: {
    type: 'object',
    patternProperties: { '^x-[a-z]+$': { type: 'integer', minimum: 1 } },
    additionalProperties: false,
    minProperties: 2,
  },
  'patternProperties over a listed property': {
    type: 'object',
    properties: { 'x-a': { type: 'number' } },
    patternProperties: { '^x-': { type: 'integer', maximum: -7 } },
    required: ['x-a'],
  },
  'minProperties and maxProperties': {
    type: 'object',
    properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
    minProperties: 2,
    maxProperties: 2,
  },
  'contains with minContains and maxContains': {
    type: 'array',
    items: { type: 'integer', minimum: 0, maximum: 9 },
    contains: { minimum: 5 },
    minContains: 2,
    maxContains: 2,
    minItems: 4,
  },
  'contains with maxContains 0 equivalent': {
    type: 'array',
    items: { enum: [1, 2] },
    contains: { const: 1 },
    maxContains: 1,
    minItems: 3,
  },
  uniqueItems: {
    type: 'array',
    items: { type: 'integer', minimum: 1, maximum: 4 },
    uniqueItems: true,
    minItems: 4,
  },
  'unevaluatedProperties false': {
    type: 'object',
    allOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }],
    properties: { b: { type: 'integer' } },
    unevaluatedProperties: false,
  },
  'unevaluatedProperties with if/then': {
    type: 'object',
    properties: { kind: { const: 'x' } },
    required: ['kind'],
    ...conditional({ properties: { kind: { const: 'x' } } }, { properties: { extra: { type: 'string' } } }),
    unevaluatedProperties: false,
  },
  unevaluatedItems: {
    type: 'array',
    prefixItems: [{ type: 'string' }],
    unevaluatedItems: { type: 'boolean' },
    minItems: 3,
  },
  'draft-07 items array and additionalItems': {
    $schema: DRAFT_07,
    type: 'array',
    items: [{ type: 'string' }, { type: 'integer' }],
    additionalItems: { type: 'boolean' },
    minItems: 4,
  },
  'draft-07 definitions and dependencies': {
    $schema: DRAFT_07,
    definitions: { id: { type: 'string', pattern: '^id-[0-9]{3}$' } },
    type: 'object',
    properties: { id: { $ref: '#/definitions/id' }, a: { type: 'integer' } },
    required: ['id', 'a'],
    dependencies: { a: ['b'], id: { properties: { b: { type: 'boolean' } } } },
  },
  'draft-07 exclusive bounds and if/then/else': {
    $schema: DRAFT_07,
    type: 'number',
    exclusiveMinimum: 2,
    exclusiveMaximum: 3,
    ...conditional({ maximum: 2.5 }, { multipleOf: 0.125 }),
  },
  'boolean schema true': { type: 'object', properties: { a: true, b: false }, required: ['a'] },
};

describe('sampleFromSchema honours each keyword', () => {
  for (const [name, schema] of Object.entries(KEYWORDS)) {
    it(name, () => assertAnswers(schema));
  }
});
