import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { InProcessLimitStore } from '../../storage/limit-store.ts';
import { AppLimiter } from './app-limiter.ts';

describe('AppLimiter.peek', () => {
  // The in-process store expires its windows by the real time: the limiter reads it too, fixed
  // inside a minute with time to spare, so the tests' counts stay in one window.
  let now = Date.now();
  before(async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 5_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    now = Date.now();
  });
  const limiter = new AppLimiter(
    {
      default: {},
      apps: {
        agent: { requestsPerMinute: 3, tokensPerMinute: 1_000, dailyBudgetUsd: 1 },
      },
    },
    new InProcessLimitStore(),
    () => now,
  );

  it("reads the app's state for an answer's headers and takes nothing from its limits", async () => {
    assert.equal((await limiter.peek('agent'))['x-ratelimit-remaining-requests'], '3');
    const admission = await limiter.admit('agent', { tokens: 100, costUsd: 0 });
    assert.equal(admission.headers['x-ratelimit-remaining-requests'], '2');
    for (let i = 0; i < 3; i++) {
      const peeked = await limiter.peek('agent');
      assert.equal(peeked['x-ratelimit-remaining-requests'], '2');
      assert.equal(peeked['x-ratelimit-remaining-tokens'], '900');
      // OpenAI's duration form: `59s`, `1m0s` when a whole minute is left, `250ms` under a second.
      assert.match(peeked['x-ratelimit-reset-requests'] ?? '', /^(\d+m)?\d+s$|^\d+ms$/);
    }
    await limiter.admit('agent', { tokens: 0, costUsd: 0 });
    await limiter.admit('agent', { tokens: 0, costUsd: 0 });
    assert.equal((await limiter.peek('agent'))['x-ratelimit-remaining-requests'], '0');
    await assert.rejects(limiter.admit('agent', { tokens: 0, costUsd: 0 }), { code: 'rate_limited' });
  });

  it("answers in the door's convention, and nothing for an app without limits", async () => {
    const anthropic = await limiter.peek('agent', 'anthropic');
    assert.equal(anthropic['anthropic-ratelimit-requests-limit'], '3');
    assert.deepEqual(await limiter.peek('free'), {});
  });
});
