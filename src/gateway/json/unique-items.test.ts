import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SchemaCompiler } from './schema-compiler.ts';
import { canonicalJson, findDuplicate } from './unique-items.ts';

const settings = { maxAttempts: 3, maxSchemaBytes: 64 * 1024, maxSchemaDepth: 48, schemaCacheSize: 3 };

describe('uniqueItems', () => {
  it('finds equal items whatever their key order, and only those (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 8 }), (items) => {
        const pairwise = items.some((a, i) => items.some((b, j) => j > i && deepEqual(a, b)));
        assert.equal(findDuplicate(items) !== undefined, pairwise);
      }),
    );
    assert.deepEqual(
      findDuplicate([
        { a: 1, b: [2] },
        { b: [2], a: 1 },
      ]),
      [0, 1],
    );
  });

  it('writes deeply nested values without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.equal(canonicalJson(deep).length, 200_001);
  });

  it('checks a model answer of many objects in linear time through the compiled schema', () => {
    const compiled = new SchemaCompiler(settings).compile({ type: 'array', uniqueItems: true });
    const items = Array.from({ length: 20_000 }, (_, k) => ({ k, tags: ['x', k % 7] }));
    const start = performance.now();
    assert.deepEqual(compiled.validate(items), []);
    const issues = compiled.validate([...items, { tags: ['x', 3], k: 3 }]);
    assert.equal(issues.length, 1);
    assert.match(issues[0]?.message ?? '', /duplicate items/);
    assert.ok(performance.now() - start < 500, `took ${(performance.now() - start).toFixed(0)} ms`);
  });
});

/** JSON Schema equality, the slow obvious way: the reference the fast one is checked against. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
