import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openAIErrorFixture } from '../../../../test/helpers/mock-openai-server.ts';
import { errorFromResponse } from './openai-error.ts';

function fromFixture(name: string) {
  const fixture = openAIErrorFixture(name);
  return errorFromResponse('provider-a', fixture.status, fixture.headers ?? {}, JSON.stringify(fixture.body));
}

/** Text from the recorded bodies that must never reach an error message or log line. */
const RAW =
  /Incorrect API key|sk-proj|Rate limit reached|org-|exceeded your current quota|Sorry about that|platform\.openai\.com/;

describe('errorFromResponse', () => {
  const cases: {
    fixture: string;
    status: number;
    retryable: boolean;
    retryAfterMs: number | undefined;
    message: string;
  }[] = [
    {
      fixture: 'error-401-invalid-api-key.json',
      status: 401,
      retryable: false,
      retryAfterMs: undefined,
      message: 'provider-a failed (HTTP 401): HTTP 401 invalid_api_key (invalid_request_error)',
    },
    {
      fixture: 'error-429-rate-limit.json',
      status: 429,
      retryable: true,
      // retry-after-ms is more precise than retry-after, and wins.
      retryAfterMs: 1250,
      message: 'provider-a failed (HTTP 429): HTTP 429 rate_limit_exceeded (requests)',
    },
    {
      fixture: 'error-429-insufficient-quota.json',
      status: 429,
      retryable: false,
      retryAfterMs: undefined,
      message: 'provider-a failed (HTTP 429): HTTP 429 insufficient_quota',
    },
    {
      fixture: 'error-500-server-error.json',
      status: 500,
      retryable: true,
      retryAfterMs: undefined,
      message: 'provider-a failed (HTTP 500): HTTP 500 server_error',
    },
  ];
  for (const { fixture, status, retryable, retryAfterMs, message } of cases) {
    it(`maps ${fixture}`, () => {
      const error = fromFixture(fixture);
      assert.equal(error.failure, 'http');
      assert.equal(error.status, status);
      assert.equal(error.retryable, retryable);
      assert.equal(error.retryAfterMs, retryAfterMs);
      assert.equal(error.message, message);
      assert.doesNotMatch(error.message, RAW);
    });
  }

  it('treats every billing code as a quota 429, whatever the type says', () => {
    for (const code of [
      'credit_balance_exhausted',
      'project_spend_limit_exceeded',
      'organization_usage_limit_exceeded',
    ]) {
      const body = JSON.stringify({ error: { message: 'm', type: 'requests', code } });
      assert.equal(errorFromResponse('provider-a', 429, {}, body).retryable, false, code);
    }
    const rate = JSON.stringify({ error: { message: 'm', type: 'tokens', code: 'rate_limit_exceeded' } });
    assert.equal(errorFromResponse('provider-a', 429, {}, rate).retryable, true);
  });

  it('decides by status for 400, 401, 403, 404, 422 (not retried) and 408, 502, 503 (retried)', () => {
    for (const status of [400, 401, 403, 404, 422])
      assert.equal(errorFromResponse('provider-a', status, {}, '').retryable, false);
    for (const status of [408, 502, 503])
      assert.equal(errorFromResponse('provider-a', status, {}, '').retryable, true);
  });

  it("honours x-should-retry: false, but never upgrades a 4xx on the upstream's say-so", () => {
    assert.equal(errorFromResponse('provider-a', 503, { 'x-should-retry': 'false' }, '').retryable, false);
    assert.equal(errorFromResponse('provider-a', 400, { 'x-should-retry': 'true' }, '').retryable, false);
  });

  it('reads retry-after seconds when there is no retry-after-ms', () => {
    assert.equal(errorFromResponse('provider-a', 503, { 'retry-after': '3' }, '').retryAfterMs, 3000);
  });

  it("reads vLLM's top-level error object and ignores its numeric code", () => {
    const body = JSON.stringify({
      object: 'error',
      message: 'secret prompt text',
      type: 'BadRequestError',
      param: null,
      code: 400,
    });
    const error = errorFromResponse('provider-b', 400, {}, body);
    assert.equal(error.message, 'provider-b failed (HTTP 400): HTTP 400 BadRequestError');
  });

  it('repeats only identifier-like type and code values, never free text or odd characters', () => {
    const body = JSON.stringify({
      error: { message: 'm', type: 'Bearer sk-live-123 was rejected', code: 'key=sk-live-123' },
    });
    const error = errorFromResponse('provider-a', 401, {}, body);
    assert.equal(error.message, 'provider-a failed (HTTP 401): HTTP 401');
    assert.doesNotMatch(error.message, /sk-live/);
  });

  it('copes with bodies that are not JSON, not objects or empty', () => {
    for (const text of ['<html>Bad Gateway</html>', '"oops"', '', '{"error": "string only"}']) {
      const error = errorFromResponse('provider-a', 502, {}, text);
      assert.equal(error.message, 'provider-a failed (HTTP 502): HTTP 502');
      assert.equal(error.retryable, true);
    }
  });
});
