import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { APP, shareGateway } from '../helpers/gateway-harness.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const messages = [{ role: 'user', content: 'how many are left?' }];
const ANTHROPIC = { 'anthropic-version': '2023-06-01' };

describe('limit state on every answer, in each door’s convention (contract 5.8)', () => {
  const gw = shareGateway({
    // Each test's requests fall in one minute's window (the clock starts a second past a minute).
    clock: clockAtMinuteStart(),
    file: {
      limits: {
        apps: {
          [APP]: { requestsPerMinute: 50, tokensPerMinute: 1_000_000 },
          other: { requestsPerMinute: 3 },
        },
      },
    },
  });

  it('native API and OpenAI door: x-ratelimit-* requests and tokens triples', async () => {
    const first = await gw.chat({ messages });
    const second = await gw.post('/v1/chat/completions', { model: 'chat', messages });
    for (const res of [first, second]) {
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-ratelimit-limit-requests'], '50');
      assert.match(String(res.headers['x-ratelimit-reset-requests']), /^(\d+s|\d+ms)$/);
      assert.equal(res.headers['x-ratelimit-limit-tokens'], '1000000');
      assert.ok(Number(res.headers['x-ratelimit-remaining-tokens']) < 1_000_000);
      assert.ok(res.headers.ratelimit !== undefined, 'the IETF fields stay');
    }
    assert.equal(
      Number(first.headers['x-ratelimit-remaining-requests']) - 1,
      Number(second.headers['x-ratelimit-remaining-requests']),
    );
  });

  it('Anthropic door: anthropic-ratelimit-* with RFC 3339 resets', async () => {
    const res = await gw.post(
      '/v1/messages',
      { model: 'chat', max_tokens: 8, messages },
      { headers: ANTHROPIC },
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers['anthropic-ratelimit-requests-limit'], '50');
    assert.match(
      String(res.headers['anthropic-ratelimit-requests-reset']),
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    assert.equal(res.headers['anthropic-ratelimit-tokens-limit'], '1000000');
    assert.equal(res.headers['x-ratelimit-limit-requests'], undefined);
  });
});

describe('limit state across two instances on one Redis', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  const options = {
    // One clock for both instances, as they share one counter in Redis.
    clock: clockAtMinuteStart(),
    env: { REDIS_URL, REDIS_KEY_PREFIX: prefix },
    file: { limits: { apps: { [APP]: { requestsPerMinute: 4 } } } },
  };
  const one = shareGateway(options);
  const two = shareGateway(options);
  after(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('counts down across both and refuses with remaining 0, no tokens triple without a token limit', async () => {
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await (i % 2 === 0 ? one : two).chat({ messages }));
    assert.deepEqual(
      answers.map((res) => res.status),
      [200, 200, 200, 200, 429],
    );
    assert.deepEqual(
      answers.map((res) => res.headers['x-ratelimit-remaining-requests']),
      ['3', '2', '1', '0', '0'],
    );
    assert.ok(answers.every((res) => res.headers['x-ratelimit-limit-tokens'] === undefined));
    assert.ok(Number(answers[4]?.headers['retry-after']) >= 1);
  });
});
