import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limitHeaders, openAIDuration } from './limit-headers.ts';

describe('limitHeaders', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 15, 500);
  const resetAt = Date.UTC(2026, 0, 1, 12, 1, 0);

  it("writes OpenAI's durations: 1s, 59s, 6m0s, 1h2m3s, 250ms", () => {
    assert.deepEqual([1_000, 58_200, 360_000, 3_723_000, 250].map(openAIDuration), [
      '1s',
      '59s',
      '6m0s',
      '1h2m3s',
      '250ms',
    ]);
  });

  it('gives the requests triple, and the tokens triple only where a token limit is set (OpenAI form)', () => {
    const requests = { limit: 10, used: 3, resetAt };
    assert.deepEqual(limitHeaders({ requestsPerMinute: 10 }, { requests }, now, 'openai'), {
      'x-ratelimit-limit-requests': '10',
      'x-ratelimit-remaining-requests': '7',
      'x-ratelimit-reset-requests': '45s',
      'ratelimit-policy': '"requests";q=10;w=60',
      ratelimit: '"requests";r=7;t=45',
    });
    const both = limitHeaders(
      { requestsPerMinute: 10, tokensPerMinute: 5_000 },
      { requests, tokens: { limit: 5_000, used: 1_200, resetAt } },
      now,
      'openai',
    );
    assert.equal(both['x-ratelimit-limit-tokens'], '5000');
    assert.equal(both['x-ratelimit-remaining-tokens'], '3800');
    assert.equal(both['x-ratelimit-reset-tokens'], '45s');
    assert.deepEqual(
      limitHeaders({ dailyBudgetUsd: 5 }, {}, now, 'openai'),
      {},
      'no per-minute limit, no header',
    );
  });

  it("gives Anthropic's names with RFC 3339 resets", () => {
    const headers = limitHeaders(
      { requestsPerMinute: 10, tokensPerMinute: 5_000 },
      { requests: { limit: 10, used: 10, resetAt }, tokens: { limit: 5_000, used: 40, resetAt } },
      now,
      'anthropic',
    );
    assert.equal(headers['anthropic-ratelimit-requests-limit'], '10');
    assert.equal(headers['anthropic-ratelimit-requests-remaining'], '0');
    assert.equal(headers['anthropic-ratelimit-requests-reset'], '2026-01-01T12:01:00Z');
    assert.equal(headers['anthropic-ratelimit-tokens-remaining'], '4960');
    assert.equal(headers['anthropic-ratelimit-tokens-reset'], '2026-01-01T12:01:00Z');
    assert.equal(headers['x-ratelimit-limit-requests'], undefined);
  });
});
