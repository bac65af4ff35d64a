import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { orderBySession } from '../../src/gateway/domain/deployment-order.ts';
import { APP, type Harness, shareGateway } from '../helpers/gateway-harness.ts';
import { deploymentsSlot, type MockDeployments, startMockDeployments } from '../helpers/mock-deployments.ts';
import { type RedisRelay, startRedisRelay } from '../helpers/redis-relay.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// The contract allows 250 ms of waiting on Redis; the rest is slack for a busy machine.
const MAX_WAIT_MS = 400;
const messages = [{ role: 'user', content: 'how busy?' }];

/** Waits until `check` holds, for at most `withinMs`; answers how long that took. */
async function waitUntil(check: () => boolean | Promise<boolean>, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > withinMs) assert.fail(`not within ${withinMs} ms`);
    await sleep(5);
  }
  return performance.now() - started;
}

describe('least-busy across two instances sharing Redis', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  let relay: RedisRelay;
  let deployments: MockDeployments;
  let direct: Redis;
  before(async () => {
    relay = await startRedisRelay();
    deployments = await startMockDeployments(['a', 'b']);
    direct = new Redis(REDIS_URL);
  });
  const options = () => ({
    env: { REDIS_URL: relay.url(), REDIS_KEY_PREFIX: prefix },
    file: { providers: { 'provider-a': deploymentsSlot(deployments, { strategy: 'least-busy' }) } },
  });
  const first = shareGateway(options);
  const second = shareGateway(options);
  after(async () => {
    await relay.restore();
    await deployments.close();
    await relay.close();
    const keys = await direct.keys(`${prefix}*`);
    if (keys.length > 0) await direct.del(...keys);
    await direct.quit();
  });

  const chat = (gw: Harness, headers: Record<string, string> = {}) =>
    gw.chat({ messages, provider: 'provider-a' }, { headers });
  const counts = () => deployments.counts();

  it("each sees the other's calls in flight; with Redis lost each counts its own, waiting no more than one command's timeout", async (t) => {
    const a = deployments.mock('a');
    const b = deployments.mock('b');
    const releaseA = a.hold();
    const releaseB = b.hold();
    // A session whose deployment is a: the first instance puts five calls on a.
    const pool = [{ key: 'provider-a/a' }, { key: 'provider-a/b' }];
    const session = Array.from({ length: 100 }, (_, i) => `s-${i}`).find(
      (key) => orderBySession(pool, `${APP}\u0000${key}`)[0]?.key === 'provider-a/a',
    ) as string;
    const answers: Promise<{ status: number }>[] = [];
    for (let i = 0; i < 5; i++) answers.push(chat(first, { 'x-session-id': session }));
    await waitUntil(() => a.requests.length === 5, 5_000);
    // The second instance, without a session, sees the first one's five calls on a: both its calls
    // go to b (counting only its own, it would send one to each).
    answers.push(chat(second), chat(second));
    await waitUntil(() => b.requests.length === 2, 5_000);
    assert.deepEqual(counts(), { a: 5, b: 2 });
    assert.equal(await direct.zcard(`${prefix}inflight:provider-a/a`), 5);

    await relay.cut('blackhole');
    // Counted by this instance alone, a and b are both empty: one call each (shared, both would go to b).
    answers.push(chat(second), chat(second));
    const arrivedMs = await waitUntil(() => a.requests.length + b.requests.length === 9, 5_000);
    t.diagnostic(
      `Redis blackholed: two calls reached their deployments ${arrivedMs.toFixed(0)} ms after they were sent`,
    );
    assert.ok(arrivedMs < MAX_WAIT_MS, `${arrivedMs} ms`);
    assert.deepEqual(counts(), { a: 6, b: 3 });
    assert.equal(second.app.sharedCounting()?.mode, 'local');
    releaseA();
    releaseB();
    for (const answer of await Promise.all(answers)) assert.equal(answer.status, 200);
    // Once in the outage, a call does not wait on Redis at all.
    const started = performance.now();
    assert.equal((await chat(second)).status, 200);
    const lateMs = performance.now() - started;
    t.diagnostic(`a whole call during the outage: ${lateMs.toFixed(0)} ms`);
    assert.ok(lateMs < MAX_WAIT_MS, `${lateMs} ms`);

    await relay.restore();
    const resumedMs = await waitUntil(() => second.app.sharedCounting()?.mode === 'shared', 10_000);
    // The counts Redis could not be told to end during the outage (and the entries in doubt) are ended now.
    await waitUntil(async () => (await direct.zcard(`${prefix}inflight:provider-a/a`)) === 0, 5_000);
    await waitUntil(async () => (await direct.zcard(`${prefix}inflight:provider-a/b`)) === 0, 5_000);
    t.diagnostic(`shared counting resumed ${resumedMs.toFixed(0)} ms after the relay was restored`);
  });
});
