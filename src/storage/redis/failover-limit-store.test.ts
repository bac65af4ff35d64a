import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../platform/logger.ts';
import { InProcessLimitStore, type LimitStore } from '../limit-store.ts';
import { FailoverLimitStore } from './failover-limit-store.ts';
import { RedisAvailability } from './redis-availability.ts';
import type { Redis } from './redis-client.ts';
import { LeaseInDoubtError } from './redis-limit-store.ts';

const HOUR = 3_600_000;

/** An in-process store standing in for Redis, which a test can take down; it records every call. */
class FlakyStore implements LimitStore {
  down = false;
  readonly calls: string[] = [];
  readonly #inner = new InProcessLimitStore();

  async reserve(key: string, amount: number, limit: number, resetAt: number) {
    this.#enter(`reserve ${key} ${amount}`);
    return this.#inner.reserve(key, amount, limit, resetAt);
  }
  async adjust(key: string, delta: number, resetAt: number) {
    this.#enter(`adjust ${key} ${delta}`);
    return this.#inner.adjust(key, delta, resetAt);
  }
  async acquireLease(key: string, limit: number, now: number, expiresAt: number) {
    if (this.down) {
      this.calls.push(`acquire ${key}`);
      throw new LeaseInDoubtError('doubtful-lease', new Error('Command timed out'));
    }
    this.calls.push(`acquire ${key}`);
    return this.#inner.acquireLease(key, limit, now, expiresAt);
  }
  async releaseLease(key: string, leaseId: string) {
    this.#enter(`release ${key} ${leaseId}`);
    return this.#inner.releaseLease(key, leaseId);
  }
  #enter(call: string): void {
    this.calls.push(call);
    if (this.down) throw new Error('Command timed out');
  }
}

function setUp() {
  const shared = new FlakyStore();
  // What RedisAvailability uses of the connection: its status and a probe write that fails while down.
  const redis = {
    status: 'ready',
    on: () => {},
    set: async () => {
      if (shared.down) throw new Error('Command timed out');
      return 'OK';
    },
  } as unknown as Redis;
  const logs: { level: number; msg: string }[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') logs.push(JSON.parse(line));
      done();
    },
  });
  const availability = new RedisAvailability(
    redis,
    createLogger({ level: 'info', destination }),
    'test:availability-probe',
    10,
  );
  const store = new FailoverLimitStore(shared, availability);
  const waitFor = async (mode: 'shared' | 'local') => {
    const deadline = Date.now() + 2_000;
    while (availability.state().mode !== mode && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    assert.equal(availability.state().mode, mode);
    // The resume hooks run right after the mode changes.
    await new Promise((r) => setTimeout(r, 20));
  };
  return { shared, availability, store, logs, waitFor };
}

describe('FailoverLimitStore', () => {
  it('answers from this process once Redis fails, warns once, and stops asking Redis until it is back', async () => {
    const { shared, availability, store, logs } = setUp();
    const resetAt = Date.now() + HOUR;
    assert.equal((await store.reserve('k', 1, 3, resetAt)).used, 1);
    shared.down = true;
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await store.reserve('k', 1, 3, resetAt)).ok);
    assert.deepEqual(answers, [true, true, true, false], 'the local count has the same semantics');
    assert.equal(shared.calls.filter((c) => c.startsWith('reserve')).length, 2, 'one failed call, then none');
    assert.equal(logs.filter((l) => l.level === 40).length, 1);
    assert.equal(availability.state().mode, 'local');
    assert.equal(availability.state().outages, 1);
    availability.close();
  });

  it('when Redis is back, adds the outage’s local counts to it and says so once', async () => {
    const { shared, availability, store, logs, waitFor } = setUp();
    const resetAt = Date.now() + HOUR;
    const ended = Date.now() - 1;
    shared.down = true;
    await store.reserve('rpm', 1, 100, resetAt);
    await store.reserve('rpm', 1, 100, resetAt);
    await store.reserve('usd', 500, 10_000, resetAt);
    await store.adjust('usd', -200, resetAt);
    await store.reserve('old-window', 1, 100, ended + 1);
    shared.down = false;
    await waitFor('shared');
    const replayed = shared.calls.filter((c) => c.startsWith('adjust'));
    assert.deepEqual(replayed.sort(), ['adjust rpm 2', 'adjust usd 300']);
    assert.equal((await store.reserve('rpm', 1, 100, resetAt)).used, 3, 'Redis holds the outage’s requests');
    assert.equal(logs.filter((l) => l.level === 30).length, 1);
    availability.close();
  });

  it('releases a local lease locally, and owes Redis the releases it could not make', async () => {
    const { shared, availability, store, waitFor } = setUp();
    const now = Date.now();
    const held = await store.acquireLease('lease', 2, now, now + HOUR);
    assert.ok(held !== undefined && !held.startsWith('local:'));
    shared.down = true;
    // In doubt: Redis may have taken it; taken here instead.
    const first = await store.acquireLease('lease', 2, now, now + HOUR);
    const second = await store.acquireLease('lease', 2, now, now + HOUR);
    assert.ok(first?.startsWith('local:') && second?.startsWith('local:'));
    assert.equal(await store.acquireLease('lease', 2, now, now + HOUR), undefined, 'the local limit holds');
    await store.releaseLease('lease', held); // Redis is known to be out: owed, not tried
    shared.down = false;
    await waitFor('shared');
    await store.releaseLease('lease', first as string);
    await store.releaseLease('lease', second as string);
    const releases = shared.calls.filter((c) => c.startsWith('release'));
    assert.deepEqual(
      releases,
      ['release lease doubtful-lease', `release lease ${held}`],
      'local leases stay local',
    );
    assert.ok(
      (await store.acquireLease('lease', 1, now, now + HOUR)) !== undefined,
      'Redis has no lease left behind by the outage',
    );
    availability.close();
  });
});
