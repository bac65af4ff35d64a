import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { geminiFixture } from '../../../../test/helpers/mock-gemini-server.ts';
import { geminiHttpError, parseDuration } from './gemini-error.ts';

const SLOT = 'provider-b';

describe('geminiHttpError (recorded error bodies)', () => {
  const cases: {
    fixture: string;
    status: number;
    headers?: Record<string, string>;
    retryable: boolean;
    retryAfterMs: number | undefined;
    detail: string;
  }[] = [
    {
      fixture: 'error-400-api-key-invalid.json',
      status: 400,
      retryable: false,
      retryAfterMs: undefined,
      detail: 'HTTP 400 API_KEY_INVALID',
    },
    {
      fixture: 'error-429-per-minute.json',
      status: 429,
      retryable: true,
      retryAfterMs: 12_000,
      detail: 'HTTP 429 RESOURCE_EXHAUSTED',
    },
    {
      fixture: 'error-429-per-minute.json',
      status: 429,
      headers: { 'retry-after': '30' },
      retryable: true,
      retryAfterMs: 30_000,
      detail: 'HTTP 429 RESOURCE_EXHAUSTED',
    },
    {
      fixture: 'error-429-per-day.json',
      status: 429,
      retryable: false,
      retryAfterMs: 41_000,
      detail: 'HTTP 429 RESOURCE_EXHAUSTED (daily quota)',
    },
    {
      fixture: 'error-503-unavailable.json',
      status: 503,
      retryable: true,
      retryAfterMs: undefined,
      detail: 'HTTP 503 UNAVAILABLE',
    },
  ];
  for (const { fixture, status, headers, retryable, retryAfterMs, detail } of cases) {
    it(`${fixture}${headers ? ' with a retry-after header' : ''}`, () => {
      const body = geminiFixture(fixture);
      const error = geminiHttpError(SLOT, status, headers ?? {}, body);
      assert.equal(error.failure, 'http');
      assert.equal(error.status, status);
      assert.equal(error.retryable, retryable);
      assert.equal(error.retryAfterMs, retryAfterMs);
      assert.equal(error.message, `${SLOT} failed (HTTP ${status}): ${detail}`);
      // Only enum tokens are repeated: nothing of the upstream's free text.
      const upstreamMessage = JSON.parse(body).error.message as string;
      assert.ok(!error.message.includes(upstreamMessage.slice(0, 20)));
    });
  }

  it('honours retry-after alone when the body has no RetryInfo', () => {
    const error = geminiHttpError(
      SLOT,
      429,
      { 'retry-after': '2' },
      '{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}',
    );
    assert.equal(error.retryAfterMs, 2_000);
    assert.equal(error.retryable, true);
  });

  it('treats an ErrorInfo naming a per-day quota limit as not retryable', () => {
    const body = JSON.stringify({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'RATE_LIMIT_EXCEEDED',
            metadata: { quota_limit: 'Gemini25ProRequestsPerDay' },
          },
        ],
      },
    });
    const error = geminiHttpError(SLOT, 429, {}, body);
    assert.equal(error.retryable, false);
    assert.equal(error.message, `${SLOT} failed (HTTP 429): HTTP 429 RATE_LIMIT_EXCEEDED (daily quota)`);
  });

  it('keeps the detail safe whatever the body holds', () => {
    const hostile = JSON.stringify({
      error: {
        code: 400,
        message: 'key AIzaSECRET is bad',
        status: 'invalid argument: AIzaSECRET',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'AIzaSECRET lowercase' }],
      },
    });
    for (const body of [hostile, '<html>502 Bad Gateway</html>', '', '[{"error":{"status":"INTERNAL"}}]']) {
      const error = geminiHttpError(SLOT, 502, {}, body);
      assert.ok(!error.message.includes('AIzaSECRET'));
      assert.ok(!error.message.includes('html'));
      assert.equal(error.retryable, true);
    }
    assert.equal(
      geminiHttpError(SLOT, 500, {}, '[{"error":{"status":"INTERNAL"}}]').message,
      `${SLOT} failed (HTTP 500): HTTP 500 INTERNAL`,
    );
  });

  it('decides retryability from the status otherwise', () => {
    assert.equal(geminiHttpError(SLOT, 403, {}, '{"error":{"status":"PERMISSION_DENIED"}}').retryable, false);
    assert.equal(geminiHttpError(SLOT, 404, {}, '{"error":{"status":"NOT_FOUND"}}').retryable, false);
    assert.equal(geminiHttpError(SLOT, 500, {}, '{"error":{"status":"INTERNAL"}}').retryable, true);
    assert.equal(geminiHttpError(SLOT, 504, {}, '{"error":{"status":"DEADLINE_EXCEEDED"}}').retryable, true);
  });
});

describe('parseDuration (google.protobuf.Duration JSON)', () => {
  const table: [unknown, number | undefined][] = [
    ['12s', 12_000],
    ['0.5s', 500],
    ['1.1s', 1_100],
    ['45.837906927s', 45_838],
    ['0s', 0],
    ['12', undefined],
    ['-1s', undefined],
    ['1.2345678901s', undefined],
    [12, undefined],
    [undefined, undefined],
  ];
  for (const [input, expected] of table) {
    it(`${JSON.stringify(input)} -> ${expected}`, () => assert.equal(parseDuration(input), expected));
  }
});
