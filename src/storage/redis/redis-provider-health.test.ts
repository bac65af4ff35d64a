import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { circuitKey } from '../provider-health.ts';
import { RedisProviderHealth } from './redis-provider-health.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const settings = { failureThreshold: 2, cooldownMs: 60_000 };

describe('RedisProviderHealth: a circuit per deployment, shared by instances', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  const east = circuitKey('provider-a', 'east');
  const west = circuitKey('provider-a', 'west');
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

  it("opens one deployment's circuit for every instance, and leaves its neighbour's closed", async () => {
    const circuits = [east, west, circuitKey('provider-b', null)];
    const first = new RedisProviderHealth(one, settings, prefix, circuits, 60_000);
    const second = new RedisProviderHealth(two, settings, prefix, circuits, 60_000);
    const now = Date.now();
    first.recordFailure(east, now);
    first.recordFailure(east, now);
    assert.equal(first.state(east, now), 'open');
    // The write is not awaited by the caller; the other instance's next poll reads it, once the
    // write arrived (50 ms was not always enough on a loaded machine: poll, for up to 5 s).
    const deadline = Date.now() + 5_000;
    do {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await second.refresh();
    } while (second.state(east, now) !== 'open' && Date.now() < deadline);
    assert.equal(second.state(east, now), 'open');
    assert.equal(second.tryAcquire(east, now), false);
    assert.equal(second.state(west, now), 'closed');
    assert.equal(second.state('provider-b', now), 'closed');
    assert.equal(await one.exists(`${prefix}circuit:provider-a/east:open_until`), 1);
    await Promise.all([first.close(), second.close()]);
  });
});
