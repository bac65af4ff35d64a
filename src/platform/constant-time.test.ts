import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { constantTimeEqual } from './constant-time.ts';

describe('constantTimeEqual', () => {
  it('agrees with === on any pair of strings', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => constantTimeEqual(a, b) === (a === b)));
    fc.assert(fc.property(fc.string(), (a) => constantTimeEqual(a, a)));
  });

  it('tells apart strings that differ in one character anywhere, or in length', () => {
    const digest = 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=';
    for (let i = 0; i < digest.length; i++) {
      const changed = `${digest.slice(0, i)}${digest[i] === 'A' ? 'B' : 'A'}${digest.slice(i + 1)}`;
      assert.equal(constantTimeEqual(digest, changed), false, `position ${i}`);
    }
    assert.equal(constantTimeEqual(digest, digest.slice(0, -1)), false);
    assert.equal(constantTimeEqual('', ''), true);
  });
});
