import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { canonicalJson } from './canonical-json.ts';
import { writeCanonicalJson } from './canonical-json-digest.ts';

function digestOf(value: unknown): string {
  const hash = createHash('sha256');
  writeCanonicalJson(value, hash);
  return hash.digest('hex');
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('writeCanonicalJson', () => {
  it('writes the text canonicalJson gives, for every kind of value', () => {
    const values: unknown[] = [
      null,
      7,
      'a "quoted" \u2028 string',
      [],
      {},
      [1, undefined, null, { b: 1, a: [true, false] }],
      { z: 1, a: { y: [{}, []], x: 'x' }, u: undefined, f: () => 1, '': 0 },
      {
        model: 'm',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
        ],
      },
    ];
    for (const value of values) {
      const chunks: string[] = [];
      writeCanonicalJson(value, { update: (text) => chunks.push(text) });
      assert.equal(chunks.join(''), canonicalJson(value), JSON.stringify(value));
    }
  });

  it('one digest for two field orders; another for another value', () => {
    assert.equal(digestOf({ a: 1, b: [2, { c: 3, d: 4 }] }), digestOf({ b: [2, { d: 4, c: 3 }], a: 1 }));
    assert.notEqual(digestOf({ a: 1 }), digestOf({ a: 2 }));
  });

  it('a large value goes to the hash in chunks, with the digest of the whole text', () => {
    const big = { data: 'x'.repeat(300_000), list: Array.from({ length: 20_000 }, (_, n) => ({ n })) };
    let calls = 0;
    const hash = createHash('sha256');
    writeCanonicalJson(big, {
      update(text) {
        calls++;
        return hash.update(text);
      },
    });
    assert.equal(hash.digest('hex'), sha(canonicalJson(big)));
    assert.ok(calls > 1 && calls < 100, `${calls} chunks`);
  });

  it('a value nested deeper than the call stack reaches is written without recursion', () => {
    let deep: unknown = 'core';
    for (let level = 0; level < 200_000; level++) deep = level % 2 === 0 ? [deep] : { k: deep };
    assert.match(digestOf(deep), /^[0-9a-f]{64}$/);
  });
});
