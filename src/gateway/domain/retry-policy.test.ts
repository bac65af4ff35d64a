import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay, decideRetry } from './retry-policy.ts';

const settings = { maxRetries: 2, baseDelayMs: 200, maxDelayMs: 1000, budgetMs: 25_000 };

describe('retry policy', () => {
  it('grows exponentially with equal jitter and a cap', () => {
    assert.equal(backoffDelay(0, settings, undefined, 0), 100);
    assert.equal(backoffDelay(0, settings, undefined, 1), 200);
    assert.equal(backoffDelay(1, settings, undefined, 1), 400);
    assert.equal(backoffDelay(5, settings, undefined, 1), 1000);
    assert.equal(backoffDelay(5, settings, undefined, 0), 500);
  });

  it('never waits less than Retry-After', () => {
    assert.equal(backoffDelay(0, settings, 3000, 0.5), 3000);
  });

  it('does not retry what is not retryable, past the retry count, or past the budget', () => {
    const base = { retryable: true, retryAfterMs: undefined, retriesSoFar: 0, budgetLeftMs: 10_000 };
    assert.deepEqual(decideRetry({ ...base, retryable: false }, settings, 0.5), {
      retry: false,
      reason: 'not_retryable',
    });
    assert.deepEqual(decideRetry({ ...base, retriesSoFar: 2 }, settings, 0.5), {
      retry: false,
      reason: 'retries_exhausted',
    });
    assert.deepEqual(decideRetry({ ...base, retryAfterMs: 60_000 }, settings, 0.5), {
      retry: false,
      reason: 'budget_exhausted',
    });
    assert.deepEqual(decideRetry(base, settings, 0.5), { retry: true, delayMs: 150 });
  });

  it('gives up on a persistently failing upstream within the 30 s the contract allows', () => {
    // Worst case: every candidate retried to the cap; the default budget stops it before 30 s.
    let spent = 0;
    for (let candidate = 0; candidate < 3; candidate++) {
      for (let retry = 0; ; retry++) {
        const decision = decideRetry(
          { retryable: true, retryAfterMs: 4000, retriesSoFar: retry, budgetLeftMs: 25_000 - spent },
          { ...settings, maxDelayMs: 4000 },
          1,
        );
        if (!decision.retry) break;
        spent += decision.delayMs;
      }
    }
    assert.ok(spent < 25_000, `spent ${spent}`);
  });
});
