import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { AUTH, createGateway, type Harness, startGateway } from '../helpers/gateway-harness.ts';
import { sendAndLeave } from '../helpers/leaving-client.ts';
import { type CutMode, type RedisRelay, startRedisRelay } from '../helpers/redis-relay.ts';

/**
 * The response cache in Redis (CONTRACT 5.5): instances share entries, each bounded and kept its
 * TTL under the key prefix; Redis lost is a miss within the 250 ms the contract allows, never an
 * error, and hits come back with Redis. Coalescing (in process): identical requests in flight
 * make one upstream call when it is on, one each when it is off.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// 250 ms of waiting on Redis at most; the rest is slack for a loaded machine.
const MAX_ANSWER_MS = 750;
const ask = (content: string) => ({ messages: [{ role: 'user', content }], maxTokens: 20 });

describe('response cache in Redis: two instances, and Redis lost and back', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  let relay: RedisRelay;
  let direct: Redis;
  let first: Harness;
  let second: Harness;

  before(async () => {
    relay = await startRedisRelay();
    direct = new Redis(REDIS_URL);
    const options = {
      env: { REDIS_URL: relay.url(), REDIS_KEY_PREFIX: prefix },
      file: { responseCache: { enabled: true, ttlSeconds: 120 } },
    };
    first = await createGateway(options);
    second = await createGateway(options);
    // The simulated upstream counts tokens with the tokenizer's thread, which starts on first use
    // (over a second): started here, so that the outage's timings are the cache's.
    for (const gw of [first, second])
      await gw.chat(ask('warm up'), { headers: { 'x-gateway-cache': 'bypass' } });
  });

  afterEach(() => relay.restore());

  after(async () => {
    await first.close();
    await second.close();
    await relay.close();
    const keys = await direct.keys(`${prefix}*`);
    if (keys.length > 0) await direct.del(...keys);
    await direct.quit();
  });

  it("one instance's answer is the other's hit; the entry is under the prefix, with its TTL", async () => {
    const body = ask('shared between instances');
    const miss = await first.chat(body);
    assert.equal(miss.headers['x-gateway-cache'], 'miss');
    const entries = await waitFor(async () => {
      const keys = await direct.keys(`${prefix}cache:*`);
      return keys.length > 0 ? keys : undefined;
    });
    const ttl = await direct.pttl(entries[0] as string);
    assert.ok(ttl > 100_000 && ttl <= 120_000, `TTL ${ttl} ms`);
    const calls = second.calls.length;
    const hit = await second.chat(body);
    assert.equal(hit.headers['x-gateway-cache'], 'hit');
    assert.equal(hit.body.message.content, miss.body.message.content);
    assert.deepEqual({ ...hit.body.usage, estimatedCost: 0 }, { ...miss.body.usage, estimatedCost: 0 });
    assert.equal(second.calls.length, calls, 'the second instance made no upstream call');
  });

  for (const mode of ['refused', 'blackhole', 'readonly'] as CutMode[]) {
    it(`${mode}: a miss in time, never an error; hits come back with Redis`, async () => {
      const body = ask(`through a ${mode} outage`);
      await first.chat(body);
      await waitFor(async () =>
        (await second.chat(body)).headers['x-gateway-cache'] === 'hit' ? true : undefined,
      );
      await relay.cut(mode);
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const reply = await second.chat(body);
        const ms = performance.now() - started;
        assert.equal(reply.status, 200, reply.text);
        assert.equal(reply.headers['x-gateway-cache'], 'miss');
        assert.ok(ms < MAX_ANSWER_MS, `answered in ${Math.round(ms)} ms`);
      }
      await relay.restore();
      // The store rests a second after a failure, and ioredis redials: hits resume within seconds.
      const back = await waitFor(async () => {
        const reply = await second.chat(body);
        return reply.headers['x-gateway-cache'] === 'hit' ? reply : undefined;
      }, 10_000);
      assert.equal(back.status, 200);
    });
  }
});

describe('response cache: coalescing', () => {
  const slow = (content: string) => ({
    messages: [{ role: 'user', content }],
    maxTokens: 20,
    metadata: { simulated: { latencyMs: 300 } },
  });

  it('on: identical requests in flight make one upstream call; the followers are hits', async (t) => {
    const gw = await startGateway(t, { file: { responseCache: { enabled: true, coalesce: true } } });
    const calls = gw.calls.length;
    const whole = await Promise.all([
      gw.chat(slow('together')),
      gw.chat(slow('together')),
      gw.chat(slow('together')),
    ]);
    assert.equal(gw.calls.length, calls + 1);
    assert.deepEqual(whole.map((r) => r.headers['x-gateway-cache']).sort(), ['hit', 'hit', 'miss']);
    assert.equal(new Set(whole.map((r) => r.body.message.content)).size, 1);
    const streamed = await Promise.all([
      gw.stream(slow('streamed together')),
      gw.stream(slow('streamed together')),
    ]);
    assert.equal(gw.calls.length, calls + 2);
    assert.deepEqual(streamed.map((r) => r.headers['x-gateway-cache']).sort(), ['hit', 'miss']);
    const texts = streamed.map((r) =>
      JSON.stringify((r.events.at(-1)?.data as { message?: unknown })?.message),
    );
    assert.equal(texts[0], texts[1]);
  });

  it('on: a leader that fails sends its followers upstream themselves', async (t) => {
    const gw = await startGateway(t, { file: { responseCache: { enabled: true, coalesce: true } } });
    const failing = {
      ...slow('fails'),
      provider: 'provider-a',
      metadata: { simulated: { latencyMs: 300, fault: 'bad_request' } },
    };
    const calls = gw.calls.length;
    const replies = await Promise.all([gw.chat(failing), gw.chat(failing)]);
    assert.equal(gw.calls.length, calls + 2, 'the follower called the upstream once the leader failed');
    assert.deepEqual(
      replies.map((r) => r.status),
      [502, 502],
    );
  });

  it('on: a follower whose client leaves while it waits still leaves its row (499), with no call of its own', async (t) => {
    const gw = await startGateway(t, { file: { responseCache: { enabled: true, coalesce: true } } });
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    const { port } = gw.gateway.server.address() as AddressInfo;
    // The credential's first check (scrypt) is over before the follower comes: a client that
    // leaves during it sent no request the handler saw (decision 0012).
    const warm = (await gw.chat(slow('warm up'), { headers: { 'x-gateway-cache': 'bypass' } })).body.id;
    const calls = gw.calls.length;
    const leader = gw.chat(slow('the follower leaves'));
    const follower = await sendAndLeave(
      port,
      { path: '/v1/chat', headers: AUTH, body: JSON.stringify(slow('the follower leaves')) },
      { afterSentMs: 100 },
    );
    assert.ok(follower.left, 'left while waiting');
    assert.equal((await leader).headers['x-gateway-cache'], 'miss');
    assert.equal(gw.calls.length, calls + 1);
    const rows = await waitFor(async () => {
      await gw.app.recorder.flush();
      const all = await gw.app.storage.usage.readRecords({ limit: 100 });
      return all.length === 3 ? all.filter((r) => r.id !== warm) : undefined;
    });
    assert.deepEqual(rows.map((r) => r.status).sort(), [200, 499]);
    const left = rows.find((r) => r.status === 499);
    assert.deepEqual(left?.attempts, []);
    assert.equal(left?.costUsd, 0);
  });

  it('off: both go upstream, and one answer is kept', async (t) => {
    const gw = await startGateway(t, { file: { responseCache: { enabled: true } } });
    const calls = gw.calls.length;
    const replies = await Promise.all([gw.chat(slow('apart')), gw.chat(slow('apart'))]);
    assert.equal(gw.calls.length, calls + 2);
    assert.deepEqual(
      replies.map((r) => r.headers['x-gateway-cache']),
      ['miss', 'miss'],
    );
    assert.equal((await gw.chat(slow('apart'))).headers['x-gateway-cache'], 'hit');
    assert.equal(gw.calls.length, calls + 2);
  });
});

/** Polls `check` until it gives a value (entries are written after the answer), within `ms`. */
async function waitFor<T>(check: () => Promise<T | undefined>, ms = 3_000): Promise<T> {
  const until = performance.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > until) throw new Error(`not seen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
