import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InProcessInFlightCounter } from './in-flight-counter.ts';

describe('InProcessInFlightCounter', () => {
  it('enters the least busy key, the first of the least busy on a tie, and counts what it entered', async () => {
    const counter = new InProcessInFlightCounter();
    const first = await counter.enterLeastBusy(['a', 'b', 'c'], 0, 1_000);
    assert.deepEqual([first.index, first.counts], [0, [0, 0, 0]]);
    const second = await counter.enterLeastBusy(['a', 'b', 'c'], 0, 1_000);
    assert.deepEqual([second.index, second.counts], [1, [1, 0, 0]]);
    await counter.enter('c', 0, 1_000);
    await counter.enter('c', 0, 1_000);
    const third = await counter.enterLeastBusy(['c', 'a', 'b'], 0, 1_000);
    assert.deepEqual([third.index, third.counts], [1, [2, 1, 1]]);
    assert.deepEqual(
      ['a', 'b', 'c'].map((key) => counter.count(key, 0)),
      [2, 1, 2],
    );
  });

  it('forgets a lease when it is left, and once it has expired', async () => {
    const counter = new InProcessInFlightCounter();
    const lease = await counter.enter('a', 0, 1_000);
    await counter.enter('a', 0, 5_000);
    await counter.leave('a', lease);
    assert.equal(counter.count('a', 0), 1);
    assert.equal(counter.count('a', 5_000), 0, 'expired: a holder that never left no longer counts');
    await counter.leave('a', 'no-such-lease');
    assert.equal(counter.count('a', 0), 0);
  });
});
