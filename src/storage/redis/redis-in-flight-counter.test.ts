import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisInFlightCounter } from './redis-in-flight-counter.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('RedisInFlightCounter (a real Redis, two connections as two instances)', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  let one: Redis;
  let two: Redis;
  before(() => {
    one = new Redis(REDIS_URL);
    two = new Redis(REDIS_URL);
  });
  after(async () => {
    const keys = await one.keys(`${prefix}*`);
    if (keys.length > 0) await one.del(...keys);
    await Promise.all([one.quit(), two.quit()]);
  });

  it("sees the other instance's calls: entering the least busy goes where it has fewer", async () => {
    const first = new RedisInFlightCounter(one, prefix);
    const second = new RedisInFlightCounter(two, prefix);
    const now = Date.now();
    await first.enter('slot/a', now, now + 60_000);
    await first.enter('slot/a', now, now + 60_000);
    const entry = await second.enterLeastBusy(['slot/a', 'slot/b'], now, now + 60_000);
    assert.deepEqual([entry.index, entry.counts], [1, [2, 0]]);
    await second.leave('slot/b', entry.lease);
    assert.equal(await one.zcard(`${prefix}inflight:slot/b`), 0);
  });

  it('is atomic: 40 entries at once from two instances over two keys split 20 and 20', async () => {
    const counters = [new RedisInFlightCounter(one, prefix), new RedisInFlightCounter(two, prefix)];
    const now = Date.now();
    const keys = ['even/a', 'even/b'];
    const entries = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (counters[i % 2] as RedisInFlightCounter).enterLeastBusy(keys, now, now + 60_000),
      ),
    );
    assert.deepEqual(
      keys.map((_, index) => entries.filter((entry) => entry.index === index).length),
      [20, 20],
    );
  });

  it("drops expired leases before counting, so a dead instance's calls stop counting", async () => {
    const counter = new RedisInFlightCounter(one, prefix);
    const now = Date.now();
    await counter.enter('dead/a', now - 10_000, now - 1);
    await counter.enter('dead/a', now, now + 60_000);
    const entry = await counter.enterLeastBusy(['dead/a', 'dead/b'], now, now + 60_000);
    assert.deepEqual(entry.counts, [1, 0]);
    const ttl = await one.pttl(`${prefix}inflight:dead/b`);
    assert.ok(ttl > 55_000 && ttl <= 60_000, `the key lives as long as its last lease (${ttl} ms)`);
  });
});
