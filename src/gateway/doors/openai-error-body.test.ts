import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openAIErrorBody } from './openai-error-body.ts';
import { pointerToParam } from './openai-refusal.ts';

describe('OpenAI error bodies', () => {
  it('a JSON Pointer as OpenAI names a parameter', () => {
    assert.equal(pointerToParam(''), '');
    assert.equal(pointerToParam('/n'), 'n');
    assert.equal(pointerToParam('/messages/0/content/1/type'), 'messages[0].content[1].type');
    assert.equal(pointerToParam('/metadata/a~1b~0c'), 'metadata.a/b~c');
    assert.equal(pointerToParam('/tools/10'), 'tools[10]');
  });

  it('type by status, the gateway code, the first field as param and every field in the message', () => {
    const body = openAIErrorBody(400, {
      error: {
        code: 'invalid_request',
        message: 'x',
        details: [
          { path: '/messages/0/role', message: 'must be one of: user' },
          { path: '/temperature', message: 'must be <= 2' },
        ],
      },
    });
    assert.deepEqual(body, {
      error: {
        message: 'messages[0].role: must be one of: user; temperature: must be <= 2',
        type: 'invalid_request_error',
        param: 'messages[0].role',
        code: 'invalid_request',
      },
    });
    const cases: [number, string][] = [
      [401, 'authentication_error'],
      [403, 'permission_error'],
      [404, 'not_found_error'],
      [413, 'invalid_request_error'],
      [429, 'rate_limit_error'],
      [500, 'server_error'],
      [502, 'server_error'],
      [504, 'server_error'],
    ];
    for (const [status, type] of cases) {
      const error = openAIErrorBody(status, { error: { code: 'internal_error', message: 'm' } }).error;
      assert.deepEqual([error.type, error.param, error.message], [type, null, 'm']);
    }
  });

  it('details that are not field issues (an upstream failure) give no param', () => {
    const body = openAIErrorBody(502, {
      error: { code: 'upstream_error', message: 'provider-a failed', details: { provider: 'provider-a' } },
    });
    assert.equal(body.error.param, null);
    assert.equal(body.error.message, 'provider-a failed');
  });
});
