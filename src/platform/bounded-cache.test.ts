import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedCache } from './bounded-cache.ts';

describe('BoundedCache', () => {
  it('never holds more than its bound, however many keys are set', () => {
    const cache = new BoundedCache<string, number>(100);
    for (let i = 0; i < 10_000; i++) cache.set(`k${i}`, i);
    assert.equal(cache.size, 100);
    assert.equal(cache.get('k9999'), 9999);
    assert.equal(cache.get('k0'), undefined);
  });

  it('forgets the least recently used key first', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    assert.equal(cache.get('a'), 1);
    cache.set('c', 3);
    assert.equal(cache.get('b'), undefined, 'b was used least recently');
    assert.equal(cache.get('a'), 1);
    assert.equal(cache.get('c'), 3);
  });
});
