import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId, newTimeOrderedId, pickRequestId } from './ids.ts';

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

  it('takes fresh random bits for every id, across refills of the drawn bytes', () => {
    // 256 ids empty the 4 KiB drawn at once: 1,000 go through several refills.
    const tails = Array.from({ length: 1000 }, () => newTimeOrderedId('usage', 42).slice(-19));
    assert.equal(new Set(tails).size, tails.length);
  });

  it('sorts by time, and two ids of one millisecond differ', () => {
    const a = newTimeOrderedId('usage', 1000);
    const b = newTimeOrderedId('usage', 1000);
    const c = newTimeOrderedId('usage', 1001);
    assert.notEqual(a, b);
    assert.ok(a < c && b < c);
  });
});

describe('newId', () => {
  it('is the prefix and 32 hex digits, each id its own across refills of the drawn bytes', () => {
    const ids = Array.from({ length: 1000 }, (_, n) => (n % 2 === 0 ? newId('req') : newTimeOrderedId('x')));
    const plain = ids.filter((id) => id.startsWith('req_'));
    for (const id of plain) assert.match(id, /^req_[0-9a-f]{32}$/);
    assert.equal(new Set(plain.map((id) => id.slice(4))).size, plain.length);
    // The time-ordered ids between them overwrite only their own bytes: no plain id holds one's time.
    const time = Date.now().toString(16).padStart(12, '0').slice(0, 8);
    assert.ok(plain.every((id) => !id.startsWith(`req_${time}`)));
  });

  it("keeps a caller's harmless x-request-id, and mints one for anything else", () => {
    assert.equal(pickRequestId('trace-1.2:3'), 'trace-1.2:3');
    for (const incoming of [undefined, ['a', 'b'], 'has space', 'x'.repeat(129), '']) {
      assert.match(pickRequestId(incoming), /^req_[0-9a-f]{32}$/);
    }
  });
});
