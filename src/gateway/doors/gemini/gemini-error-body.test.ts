import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import { toGeminiError, toGeminiStreamError } from './gemini-error-body.ts';

describe("the gateway's errors in Google's shape", () => {
  it('names the status as Google does, a failed upstream 503 and an internal fault 500', () => {
    const cases: [ApiError, number, string][] = [
      [new ApiError('invalid_request', 'bad'), 400, 'INVALID_ARGUMENT'],
      [new ApiError('unauthorized', 'who'), 401, 'UNAUTHENTICATED'],
      [new ApiError('forbidden', 'no'), 403, 'PERMISSION_DENIED'],
      // An app's or team's model allow list (CONTRACT 6.5).
      [new ApiError('model_not_allowed', "model 'x' is not allowed for app 'a'"), 403, 'PERMISSION_DENIED'],
      [new ApiError('not_found', 'gone'), 404, 'NOT_FOUND'],
      [
        new ApiError('upstream_error', 'provider-a failed (HTTP 500)', { details: { status: 500 } }),
        503,
        'UNAVAILABLE',
      ],
      [new ApiError('provider_unavailable', 'circuit open'), 503, 'UNAVAILABLE'],
      [new ApiError('internal_error', 'internal error'), 500, 'INTERNAL'],
      [new ApiError('upstream_timeout', 'slow'), 504, 'DEADLINE_EXCEEDED'],
    ];
    for (const [error, code, status] of cases) {
      const answer = toGeminiError(error);
      assert.equal(answer.status, code, error.code);
      assert.deepEqual(answer.body.error, { code, message: error.message, status });
    }
  });

  it("a 429, the gateway's or an upstream's, carries Retry-After and RetryInfo", () => {
    const limit = toGeminiError(
      new ApiError('rate_limited', "app 'a' reached its daily budget limit", {
        headers: { 'retry-after': '30' },
      }),
    );
    assert.equal(limit.status, 429);
    assert.equal(limit.headers['retry-after'], '30');
    assert.deepEqual(limit.body.error.details, [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' },
    ]);
    const upstream = toGeminiError(
      new ApiError('upstream_error', 'provider-b failed (HTTP 429)', { details: { status: 429 } }),
    );
    assert.equal(upstream.status, 429);
    assert.equal(upstream.body.error.status, 'RESOURCE_EXHAUSTED');
    assert.equal(upstream.headers['retry-after'], '1');
  });

  it("a prompt too long, in any vendor's words, is Google's INVALID_ARGUMENT with the figures", () => {
    const anthropic = toGeminiError(
      new ApiError('invalid_request', 'prompt is too long: 210000 tokens > 200000 maximum'),
    );
    assert.equal(
      anthropic.body.error.message,
      'The input token count (210000) exceeds the maximum number of tokens allowed (200000).',
    );
    const google = toGeminiError(
      new ApiError(
        'invalid_request',
        'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      ),
    );
    assert.equal(
      google.body.error.message,
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    );
    const plain = toGeminiError(new ApiError('invalid_request', 'temperature must be a number'));
    assert.equal(plain.body.error.message, 'temperature must be a number');
  });

  it('a mid-stream failure is the same error object', () => {
    const body = toGeminiStreamError({
      error: { code: 'upstream_error', message: 'provider-a failed (stream cut)' },
    });
    assert.deepEqual(body, {
      error: { code: 503, message: 'provider-a failed (stream cut)', status: 'UNAVAILABLE' },
    });
  });
});
