import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APP, startGateway } from '../helpers/gateway-harness.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';

const messages = [{ role: 'user', content: 'limit me' }];

describe('per-app limits', () => {
  it('requests per minute: 429 rate_limited with Retry-After and RateLimit fields past the limit', async (t) => {
    const gw = await startGateway(t, {
      file: { limits: { apps: { [APP]: { requestsPerMinute: 3 } } } },
      clock: clockAtMinuteStart(),
    });
    const answers = [];
    for (let i = 0; i < 4; i++) {
      answers.push(await gw.chat({ messages }));
    }
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 429],
    );
    assert.equal(answers[0]?.headers['ratelimit-policy'], '"requests";q=3;w=60');
    assert.match(String(answers[0]?.headers.ratelimit), /^"requests";r=2;t=\d+$/);
    const refused = answers[3];
    assert.equal(refused?.body.error.code, 'rate_limited');
    const retryAfter = Number(refused?.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
    assert.match(String(refused?.headers.ratelimit), /r=0/);
    assert.equal(gw.calls.length, 3, 'a refused request never reaches an upstream');
  });

  it('concurrent requests: the second in-flight request is refused, and the slot is freed afterwards', async (t) => {
    const gw = await startGateway(t, { file: { limits: { default: { concurrentRequests: 1 } } } });
    const slow = gw.chat({ messages, metadata: { simulated: { latencyMs: 300 } } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await gw.chat({ messages });
    assert.equal(second.status, 429);
    assert.equal((await slow).status, 200);
    const third = await gw.chat({ messages });
    assert.equal(third.status, 200);
  });

  it('tokens per minute: reserved from the estimate, then settled to actual use', async (t) => {
    const gw = await startGateway(t, { file: { limits: { apps: { [APP]: { tokensPerMinute: 300 } } } } });
    // Each reservation is ~3 input + 150 output tokens: two would not fit 300 unsettled (306), but the first
    // answer uses far fewer (~70), and settling returns the rest.
    const first = await gw.chat({ messages, maxTokens: 150 });
    assert.equal(first.status, 200);
    const second = await gw.chat({ messages, maxTokens: 150 });
    assert.equal(second.status, 200, 'settling returned the unused reservation');
    const tooBig = await gw.chat({ messages, maxTokens: 500 });
    assert.equal(tooBig.status, 429);
    assert.equal(tooBig.body.error.details.limit, 'tokens per minute');
  });

  it('daily budget: refused once the day’s spend would pass it', async (t) => {
    const gw = await startGateway(t, {
      file: {
        prices: { 'simulated-chat': { inputPerMTok: 1000, outputPerMTok: 1000 } },
        limits: { apps: { [APP]: { dailyBudgetUsd: 0.2 } } },
      },
    });
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const res = await gw.chat({ messages, maxTokens: 40 });
      statuses.push(res.status);
    }
    // Each answer costs about 40 output + 10 input tokens at $1000/M = ~$0.05: the fifth would pass $0.20.
    assert.equal(statuses[0], 200);
    assert.ok(statuses.includes(429), `statuses ${statuses}`);
    assert.equal(statuses.indexOf(429), statuses.lastIndexOf(200) + 1, 'once refused, refused after');
  });

  it('apps without limits are never refused', async (t) => {
    const gw = await startGateway(t, { file: { limits: { apps: { other: { requestsPerMinute: 1 } } } } });
    for (let i = 0; i < 5; i++) {
      const res = await gw.embed({ input: 'x' });
      assert.equal(res.status, 200);
      assert.equal(res.headers['ratelimit-policy'], undefined);
    }
  });
});
