import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from './canonical-json.ts';

describe('canonicalJson', () => {
  it('is the same text whatever the order of the fields, and leaves undefined fields out', () => {
    const one = canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'text' }, e: undefined });
    const two = canonicalJson({ a: { c: 'text', d: [1, { x: 1, y: 2 }] }, b: 1 });
    assert.equal(one, two);
    assert.equal(one, '{"a":{"c":"text","d":[1,{"x":1,"y":2}]},"b":1}');
  });

  it('keeps the order of arrays and tells values apart by type', () => {
    assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
    assert.notEqual(canonicalJson({ a: '1' }), canonicalJson({ a: 1 }));
    assert.equal(canonicalJson([undefined, null]), '[null,null]');
    assert.equal(canonicalJson('a"b'), JSON.stringify('a"b'));
  });
});
