import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toResponseFailure } from './to-response-failure.ts';

describe('toResponseFailure: the codes Codex reads in response.failed', () => {
  it('a rate limit says how long to wait, in the words Codex parses', () => {
    const failure = toResponseFailure({
      error: { code: 'upstream_error', message: 'provider-a failed (429)', details: { status: 429 } },
    });
    assert.equal(failure.code, 'rate_limit_exceeded');
    assert.match(failure.message, /try again in \d+(\.\d+)?s\./);
    const own = toResponseFailure({ error: { code: 'rate_limited', message: 'app reached its limit' } });
    assert.equal(own.code, 'rate_limit_exceeded');
  });

  it('a prompt too long is context_length_exceeded', () => {
    const failure = toResponseFailure({
      error: { code: 'invalid_request', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    });
    assert.equal(failure.code, 'context_length_exceeded');
  });

  it('anything else is server_error, keeping the gateway code in the message', () => {
    const failure = toResponseFailure({ error: { code: 'upstream_timeout', message: 'no answer in time' } });
    assert.deepEqual(failure, { code: 'server_error', message: 'no answer in time (upstream_timeout)' });
  });
});
