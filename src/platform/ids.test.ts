import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newTimeOrderedId } from './ids.ts';

const V7 = /^usage_([0-9a-f]{12})7[0-9a-f]{3}[89ab][0-9a-f]{15}$/;

describe('newTimeOrderedId', () => {
  it('is a UUIDv7 after the prefix: the milliseconds in 12 hex digits, version 7, the RFC 9562 variant', () => {
    const now = 1_765_000_000_123;
    const id = newTimeOrderedId('usage', now);
    assert.match(id, V7);
    assert.equal(V7.exec(id)?.[1], now.toString(16).padStart(12, '0'));
  });

  it('writes each millisecond its own time, whether it repeats or moves on (also backwards)', () => {
    const times = [5, 5, 6, 6, 5, 0xfff_ffff_ffff, 7];
    const written = times.map((now) => V7.exec(newTimeOrderedId('usage', now))?.[1]);
    assert.deepEqual(
      written,
      times.map((now) => now.toString(16).padStart(12, '0')),
    );
  });

  it('sorts by time, and two ids of one millisecond differ', () => {
    const a = newTimeOrderedId('usage', 1000);
    const b = newTimeOrderedId('usage', 1000);
    const c = newTimeOrderedId('usage', 1001);
    assert.notEqual(a, b);
    assert.ok(a < c && b < c);
  });
});
