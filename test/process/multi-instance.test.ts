import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { APP, shareGateway } from '../helpers/gateway-harness.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';
import { createTestSchema } from '../helpers/postgres.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const messages = [{ role: 'user', content: 'shared' }];

describe('two gateway instances sharing PostgreSQL and Redis', () => {
  let schema: Awaited<ReturnType<typeof createTestSchema>>;
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  before(async () => {
    schema = await createTestSchema();
  });
  // One clock for both: they count in one shared window.
  const clock = clockAtMinuteStart();
  const options = () => ({
    clock,
    env: { DATABASE_URL: schema.url, REDIS_URL, REDIS_KEY_PREFIX: prefix },
    file: {
      limits: { apps: { [APP]: { requestsPerMinute: 6 } } },
      circuit: { failureThreshold: 3, cooldownMs: 60_000 },
    },
  });
  const one = shareGateway(options);
  const two = shareGateway(options);
  // Declared after both gateways' own after hooks: they close before their schema is dropped.
  after(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await schema.drop();
  });

  it("enforces one app's limit once across both instances, not once per instance", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const instance = i % 2 === 0 ? one : two;
      const res = await instance.chat({ messages });
      statuses.push(res.status);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 6, `statuses ${statuses}`);
    assert.equal(statuses.filter((s) => s === 429).length, 6);
  });

  it('writes both instances’ records to one ledger', async () => {
    await one.app.recorder.flush();
    await two.app.recorder.flush();
    const rows = await one.app.storage.usage.readRecords({ app: APP, limit: 100 });
    assert.equal(rows.filter((r) => r.status === 200).length, 6);
  });

  it('shares the circuit breaker: a slot opened by one instance is skipped by the other', async () => {
    // Lift the rate limit out of the way for this test: another app without limits.
    await one.app.storage.apps.createApp(
      'free',
      (await one.app.storage.apps.findApp(APP))?.secretHash ?? '',
      Date.now(),
    );
    const headers = { 'x-gateway-app': 'free' };
    // Credentials come from each instance's governance cache, refreshed from the database each
    // second (decision 0026): an app written to the store directly is known once both have read it.
    for (const instance of [one, two]) {
      for (let tries = 0; (await instance.get('/v1/models', { headers })).status !== 200; tries++) {
        assert.ok(tries < 50, 'the app made in the store is known within 5 s');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const failing = await one.chat(
      { messages, metadata: { simulated: { fault: 'server_error', slots: ['provider-a'] } } },
      { headers },
    );
    assert.equal(failing.body.provider, 'provider-b');
    await new Promise((resolve) => setTimeout(resolve, 700));
    const before = two.callsTo('provider-a');
    const res = await two.chat({ messages }, { headers });
    assert.equal(res.body.provider, 'provider-b', 'instance two skips the slot instance one opened');
    assert.equal(two.callsTo('provider-a'), before);
  });
});
