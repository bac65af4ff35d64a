import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorFixture } from '../../../../test/helpers/mock-anthropic-server.ts';
import { mapAnthropicHttpError, mapAnthropicStreamError, readErrorFacts } from './anthropic-error.ts';

function fromFixture(name: string, edit: (headers: Record<string, string>) => void = () => {}) {
  const fixture = errorFixture(name);
  const headers = { ...fixture.headers };
  edit(headers);
  return {
    error: mapAnthropicHttpError('provider-a', fixture.status, headers, JSON.stringify(fixture.body)),
    message: (fixture.body as { error: { message: string } }).error.message,
  };
}

describe('mapAnthropicHttpError', () => {
  const table: {
    fixture: string;
    status: number;
    retryable: boolean;
    retryAfterMs?: number;
    detail: string;
  }[] = [
    { fixture: 'error-401.json', status: 401, retryable: false, detail: 'authentication_error' },
    { fixture: 'error-400.json', status: 400, retryable: false, detail: 'invalid_request_error' },
    {
      fixture: 'error-429.json',
      status: 429,
      retryable: true,
      retryAfterMs: 17_000,
      detail: 'rate_limit_error',
    },
    {
      fixture: 'error-429-spend-limit.json',
      status: 429,
      retryable: false,
      detail: 'rate_limit_error (enforced_spend_limit_reached)',
    },
    { fixture: 'error-529.json', status: 529, retryable: true, detail: 'overloaded_error' },
  ];
  for (const row of table) {
    it(`${row.fixture}: HTTP ${row.status}, ${row.retryable ? 'retryable' : 'final'}`, () => {
      const { error, message } = fromFixture(row.fixture);
      assert.equal(error.failure, 'http');
      assert.equal(error.slot, 'provider-a');
      assert.equal(error.status, row.status);
      assert.equal(error.retryable, row.retryable);
      assert.equal(error.retryAfterMs, row.retryAfterMs);
      assert.equal(error.message, `provider-a failed (HTTP ${row.status}): ${row.detail}`);
      // The upstream's own words and request id never travel on.
      assert.ok(!error.message.includes(message));
      assert.ok(!error.message.includes('req_'));
    });
  }

  it('x-should-retry: false makes a retryable status final; true never makes a 4xx retryable', () => {
    assert.equal(
      fromFixture('error-529.json', (h) => (h['x-should-retry'] = 'false')).error.retryable,
      false,
    );
    assert.equal(fromFixture('error-400.json', (h) => (h['x-should-retry'] = 'true')).error.retryable, false);
  });

  it('reads retry-after as an HTTP date too', () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const { error } = fromFixture('error-429.json', (h) => (h['retry-after'] = inTenSeconds));
    assert.ok(error.retryAfterMs !== undefined && error.retryAfterMs > 8_000 && error.retryAfterMs <= 10_000);
  });

  it('an unreadable body keeps the status and says nothing of the body', () => {
    const error = mapAnthropicHttpError('provider-a', 502, {}, '<html>Bad gateway: key sk-ant-xyz</html>');
    assert.equal(error.status, 502);
    assert.equal(error.retryable, true);
    assert.equal(error.message, 'provider-a failed (HTTP 502): unrecognised error body');
  });

  it('takes only identifier-shaped types and codes from the body', () => {
    assert.deepEqual(
      readErrorFacts({ error: { type: 'Bad type with spaces: sk-ant-123', details: { error_code: 7 } } }),
      {
        type: undefined,
        code: undefined,
      },
    );
    assert.deepEqual(
      readErrorFacts({ type: 'error', error: { type: 'api_error', details: { error_code: 'x_y' } } }),
      {
        type: 'api_error',
        code: 'x_y',
      },
    );
    assert.deepEqual(readErrorFacts(null), { type: undefined, code: undefined });
  });
});

describe('mapAnthropicStreamError', () => {
  const table: [string, number, boolean][] = [
    ['overloaded_error', 529, true],
    ['api_error', 500, true],
    ['rate_limit_error', 429, true],
    ['timeout_error', 504, true],
    ['invalid_request_error', 400, false],
    ['permission_error', 403, false],
    ['unheard_of_error', 500, true],
  ];
  for (const [type, status, retryable] of table) {
    it(`${type} -> ${status}`, () => {
      const error = mapAnthropicStreamError('provider-b', {
        type: 'error',
        error: { type, message: 'words' },
      });
      assert.equal(error.status, status);
      assert.equal(error.retryable, retryable);
      assert.ok(!error.message.includes('words'));
    });
  }
});
