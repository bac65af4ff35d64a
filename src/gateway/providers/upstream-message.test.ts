import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_UPSTREAM_MESSAGE_LENGTH, redactSecrets, upstreamMessageOf } from './upstream-message.ts';

describe('upstream messages passed on to clients', () => {
  it('removes key-like text and the configured keys, keeping the rest readable', () => {
    const cases: [string, string][] = [
      ['Incorrect API key provided: sk-proj-abc123def456ghi789.', 'Incorrect API key provided: [redacted].'],
      ['invalid x-api-key sk-ant-api03-XYZxyz0123456789', 'invalid x-api-key [redacted]'],
      ['API key not valid: AIzaSyA1234567890abcdefghijklmnop', 'API key not valid: [redacted]'],
      ['sent Authorization: Bearer abc.def.ghi', 'sent Authorization: [redacted]'],
      ['url ?key=supersecret&x=1', 'url ?key=[redacted]&x=1'],
      ['token: 0123456789abcdef0123456789abcdef01', 'token: [redacted]'],
      ['model: claude-nope-9', 'model: claude-nope-9'],
      [
        'prompt is too long: 250000 tokens > 200000 maximum',
        'prompt is too long: 250000 tokens > 200000 maximum',
      ],
    ];
    for (const [text, expected] of cases) assert.equal(redactSecrets(text), expected, text);
    assert.equal(
      redactSecrets('your key xK9 is here: xK9-local', ['xK9-local']),
      'your key xK9 is here: [redacted]',
    );
    assert.equal(redactSecrets('line\nbreak\u0000end'), 'line break end');
    assert.equal(redactSecrets('a '.repeat(2_000)).length, MAX_UPSTREAM_MESSAGE_LENGTH + 1);
  });

  it("reads a 400's or 404's error.message of every vendor's body, and nothing for other statuses", () => {
    const body = { error: { message: 'The model `gpt-nope` does not exist' } };
    assert.deepEqual(upstreamMessageOf(404, body), {
      upstreamMessage: 'The model `gpt-nope` does not exist',
    });
    assert.deepEqual(upstreamMessageOf(400, { type: 'error', error: { type: 'x', message: 'too long' } }), {
      upstreamMessage: 'too long',
    });
    assert.deepEqual(upstreamMessageOf(400, [{ error: { code: 400, message: 'Gemini says no' } }]), {
      upstreamMessage: 'Gemini says no',
    });
    assert.deepEqual(upstreamMessageOf(400, { object: 'error', message: 'vLLM says no' }), {
      upstreamMessage: 'vLLM says no',
    });
    assert.deepEqual(upstreamMessageOf(401, body), {});
    assert.deepEqual(upstreamMessageOf(500, body), {});
    assert.deepEqual(upstreamMessageOf(404, 'not json'), {});
    assert.deepEqual(upstreamMessageOf(404, { error: { message: 42 } }), {});
  });
});
