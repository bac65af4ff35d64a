import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../platform/logger.ts';
import { type InFlightCounter, InProcessInFlightCounter } from '../in-flight-counter.ts';
import { FailoverInFlightCounter } from './failover-in-flight-counter.ts';
import { RedisAvailability } from './redis-availability.ts';
import type { Redis } from './redis-client.ts';
import { EntryInDoubtError } from './redis-in-flight-counter.ts';

/** An in-process counter standing in for Redis, which a test can take down; it records every call. */
class FlakyCounter implements InFlightCounter {
  down = false;
  readonly calls: string[] = [];
  readonly inner = new InProcessInFlightCounter();

  async enterLeastBusy(keys: readonly string[], now: number, expiresAt: number) {
    this.calls.push(`least ${keys.join(',')}`);
    if (this.down) throw new EntryInDoubtError(keys, 'doubtful', new Error('Command timed out'));
    return this.inner.enterLeastBusy(keys, now, expiresAt);
  }
  async enter(key: string, now: number, expiresAt: number) {
    this.calls.push(`enter ${key}`);
    if (this.down) throw new EntryInDoubtError([key], 'doubtful', new Error('Command timed out'));
    return this.inner.enter(key, now, expiresAt);
  }
  async leave(key: string, lease: string) {
    this.calls.push(`leave ${key} ${lease}`);
    if (this.down) throw new Error('Command timed out');
    return this.inner.leave(key, lease);
  }
}

function setUp() {
  const shared = new FlakyCounter();
  const redis = {
    status: 'ready',
    on: () => {},
    set: async () => {
      if (shared.down) throw new Error('Command timed out');
      return 'OK';
    },
  } as unknown as Redis;
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const availability = new RedisAvailability(
    redis,
    createLogger({ level: 'info', destination: silent }),
    'probe',
    10,
  );
  const counter = new FailoverInFlightCounter(shared, availability);
  const waitFor = async (mode: 'shared' | 'local') => {
    const deadline = Date.now() + 2_000;
    while (availability.state().mode !== mode && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    assert.equal(availability.state().mode, mode);
    await new Promise((r) => setTimeout(r, 20));
  };
  return { shared, availability, counter, waitFor };
}

describe('FailoverInFlightCounter', () => {
  it('counts in this process once Redis fails, asking Redis no more until it is back', async () => {
    const { shared, availability, counter } = setUp();
    const now = Date.now();
    await counter.enter('a', now, now + 60_000);
    shared.down = true;
    const local = await counter.enterLeastBusy(['a', 'b'], now, now + 60_000);
    assert.ok(local.lease.startsWith('local:'));
    // This process counts only its own calls: a and b are both empty here, so a (the first) is entered.
    assert.deepEqual([local.index, local.counts], [0, [0, 0]]);
    const next = await counter.enterLeastBusy(['a', 'b'], now, now + 60_000);
    assert.deepEqual([next.index, next.counts], [1, [1, 0]]);
    assert.equal(shared.calls.filter((c) => c.startsWith('least')).length, 1, 'one failed call, then none');
    assert.equal(availability.state().mode, 'local');
    await counter.leave('a', local.lease);
    assert.ok(!shared.calls.some((c) => c.includes(local.lease.slice('local:'.length))));
    availability.close();
  });

  it('ends in Redis, once it is back, the leases it could not end and those in doubt', async () => {
    const { shared, availability, counter, waitFor } = setUp();
    const now = Date.now();
    const held = await counter.enter('a', now, now + 60_000);
    shared.down = true;
    await counter.enterLeastBusy(['a', 'b'], now, now + 60_000); // in doubt: may hold a or b
    await counter.leave('a', held); // Redis is known to be out: owed, not tried
    shared.down = false;
    await waitFor('shared');
    const leaves = shared.calls.filter((c) => c.startsWith('leave'));
    assert.deepEqual(leaves, ['leave a doubtful', 'leave b doubtful', `leave a ${held}`]);
    assert.equal(shared.inner.count('a', now), 0, 'Redis counts nothing left behind by the outage');
    availability.close();
  });
});
