import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SchemaCompiler } from './schema-compiler.ts';

const settings = { maxAttempts: 3, maxSchemaBytes: 64 * 1024, maxSchemaDepth: 48, schemaCacheSize: 3 };

/** An object schema with `count` optional string properties (about 30 characters each). */
function schemaWith(count: number, prefix = 'p'): Record<string, unknown> {
  const properties = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`${prefix}${i}`, { type: 'string' }]),
  );
  return { type: 'object', properties, additionalProperties: false };
}

test('SchemaCompiler compiles a schema once and answers the same text from its cache', () => {
  const compiler = new SchemaCompiler(settings);
  const small = compiler.compile(schemaWith(2));
  assert.equal(compiler.compile(schemaWith(2)), small);
  // Past the length at which the text stops being its own key, the digest keys it.
  const large = schemaWith(200);
  assert.ok(JSON.stringify(large).length > 2048);
  const compiled = compiler.compile(large);
  assert.equal(compiler.compile(schemaWith(200)), compiled);
  assert.notEqual(compiler.compile(schemaWith(200, 'q')), compiled);
  assert.deepEqual(compiled.validate({ p0: 'x' }), []);
  assert.equal(compiled.validate({ other: 'x' }).length, 1);
});

test('SchemaCompiler evicts the least recently used schema past its cache size', () => {
  const compiler = new SchemaCompiler(settings);
  const [a, b, c] = [1, 2, 3].map((n) => compiler.compile(schemaWith(n)));
  assert.equal(compiler.compile(schemaWith(1)), a); // a is now the most recent
  compiler.compile(schemaWith(4)); // evicts b
  assert.equal(compiler.compile(schemaWith(1)), a);
  assert.equal(compiler.compile(schemaWith(3)), c);
  assert.notEqual(compiler.compile(schemaWith(2)), b);
});

/** The 400's one detail, or a failure naming what compiled instead. */
function refusal(schema: unknown): { path: string; message: string } {
  const compiler = new SchemaCompiler(settings);
  try {
    compiler.compile(schema);
  } catch (error) {
    const details = (error as { details?: { path: string; message: string }[] }).details;
    assert.equal((error as { statusCode?: number }).statusCode, 400);
    assert.ok(details?.[0] !== undefined);
    return details[0];
  }
  assert.fail(`accepted ${JSON.stringify(schema).slice(0, 200)}`);
}

/** Nested `levels` deep, built without recursion (JSON.stringify of it would overflow). */
function nested(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) node = { type: 'object', properties: { a: node } };
  return node;
}

test('SchemaCompiler runs patterns on RE2: a backtracking pattern checks a long string at once', () => {
  const compiled = new SchemaCompiler(settings).compile({
    type: 'object',
    properties: { s: { type: 'string', pattern: '^([a-z ]|[a-z ])*X$' } },
    patternProperties: { '^(a+)+$': { type: 'integer' } },
  });
  const start = performance.now();
  assert.equal(compiled.validate({ s: `${'a'.repeat(100_000)}!` }).length, 1);
  assert.equal(compiled.validate({ [`${'a'.repeat(50_000)}!`]: 'not checked', aaaa: 'x' }).length, 1);
  assert.deepEqual(compiled.validate({ s: 'abc X' }), []);
  assert.ok(performance.now() - start < 200, 'linear time');
});

test('SchemaCompiler refuses what cannot be checked in bounded time, naming where', () => {
  const cases: [string, unknown, string, RegExp][] = [
    ['backreference', { pattern: '(a)\\1' }, '/schema/pattern', /linear-time/],
    [
      'lookahead key',
      { patternProperties: { 'a(?!b)': {} } },
      '/schema/patternProperties/a(?!b)',
      /lookaround/,
    ],
    [
      'repeat count past RE2',
      { properties: { x: { pattern: 'a{2000}' } } },
      '/schema/properties/x/pattern',
      /RE2/,
    ],
    ['$ref to itself', { $ref: '#' }, '/schema', /never descends/],
    [
      'allOf cycle',
      {
        $defs: { a: { allOf: [{ $ref: '#/$defs/b' }] }, b: { anyOf: [{ $ref: '#/$defs/a' }] } },
        $ref: '#/$defs/a',
      },
      '/schema/$defs/a',
      /cycle/,
    ],
    ['minLength', { type: 'string', minLength: 100_000 }, '/schema/minLength', /at most 10000/],
    [
      'minProperties',
      { properties: { o: { minProperties: 10_000 } } },
      '/schema/properties/o/minProperties',
      /at most 1000/,
    ],
    ['minItems', { items: { minItems: 5000 } }, '/schema/items/minItems', /at most 1000/],
    [
      'required recursion without end',
      {
        $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } }, required: ['next'] } },
        $ref: '#/$defs/n',
      },
      '/schema',
      /more than 10000/,
    ],
    [
      'required fan-out',
      {
        $defs: {
          n: { type: 'array', items: { $ref: '#/$defs/m' }, minItems: 100 },
          m: { type: 'array', items: { type: 'integer' }, minItems: 200 },
        },
        $ref: '#/$defs/n',
      },
      '/schema',
      /more than 10000/,
    ],
    ['nested 6,000 levels', nested(6000), '/schema', /nested deeper than 48/],
  ];
  for (const [name, schema, path, message] of cases) {
    const detail = refusal(schema);
    assert.equal(detail.path, path, name);
    assert.match(detail.message, message, name);
  }
});

test('SchemaCompiler accepts recursion that can end, and a cycle through properties', () => {
  const compiler = new SchemaCompiler(settings);
  const tree = {
    $defs: {
      node: {
        type: 'object',
        properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } },
        required: ['kids'],
      },
    },
    $ref: '#/$defs/node',
  };
  assert.deepEqual(compiler.compile(tree).validate({ kids: [{ kids: [] }] }), []);
  const list = {
    anyOf: [{ type: 'null' }, { type: 'object', properties: { next: { $ref: '#' } }, required: ['next'] }],
  };
  assert.deepEqual(compiler.compile(list).validate({ next: { next: null } }), []);
});

test('SchemaCompiler accepts minProperties that listed optional properties make up', () => {
  const compiler = new SchemaCompiler(settings);
  // additionalProperties false leaves only the listed names: {"a": ""} is valid, not infinite.
  const compiled = compiler.compile({
    type: 'object',
    properties: { a: { type: 'string' } },
    additionalProperties: false,
    minProperties: 1,
  });
  assert.deepEqual(compiled.validate({ a: '' }), []);
  assert.match(
    refusal({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: false,
      minProperties: 2,
    }).message,
    /more than 10000 JSON values/,
  );
});
