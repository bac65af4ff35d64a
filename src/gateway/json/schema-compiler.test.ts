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
