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

  it('keeps the order a plain least-recently-used list keeps, over any mix of reads, writes and deletes', () => {
    // Repeated reads of the newest key take a shortcut; the order must not tell.
    const cache = new BoundedCache<string, number>(3);
    const model: [string, number][] = [];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor((seed / 2_147_483_648) * n);
    };
    for (let step = 0; step < 20_000; step++) {
      const key = `k${random(6)}`;
      const at = model.findIndex(([k]) => k === key);
      const op = random(8);
      if (op < 3) {
        cache.set(key, step);
        if (at >= 0) model.splice(at, 1);
        model.push([key, step]);
        if (model.length > 3) model.shift();
      } else if (op === 3) {
        cache.delete(key);
        if (at >= 0) model.splice(at, 1);
      } else {
        const expected = at >= 0 ? (model[at] as [string, number])[1] : undefined;
        if (at >= 0) model.push(...model.splice(at, 1));
        assert.equal(cache.get(key), expected, `step ${step}: get ${key}`);
      }
      assert.equal(cache.size, model.length);
    }
  });
});
