import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GATEWAY_ERRORS, type GatewayErrorCode, SHARED_ERRORS } from '../../../platform/errors.ts';
import { toAnthropicErrorBody, toAnthropicErrorType } from './anthropic-error-body.ts';

describe('toAnthropicErrorType', () => {
  it('gives every code the gateway answers with the type Anthropic documents for its status', () => {
    const expected: Record<GatewayErrorCode, string> = {
      invalid_request: 'invalid_request_error',
      invalid_json: 'invalid_request_error',
      unsupported_capability: 'invalid_request_error',
      guardrail_blocked: 'invalid_request_error',
      unauthorized: 'authentication_error',
      forbidden: 'permission_error',
      not_found: 'not_found_error',
      method_not_allowed: 'invalid_request_error',
      conflict: 'invalid_request_error',
      model_not_allowed: 'permission_error',
      request_timeout: 'invalid_request_error',
      payload_too_large: 'request_too_large',
      unsupported_media_type: 'invalid_request_error',
      rate_limited: 'rate_limit_error',
      headers_too_large: 'invalid_request_error',
      internal_error: 'api_error',
      client_closed: 'invalid_request_error',
      upstream_error: 'api_error',
      json_validation_failed: 'api_error',
      provider_unavailable: 'overloaded_error',
      shutting_down: 'overloaded_error',
      service_unavailable: 'overloaded_error',
      upstream_timeout: 'timeout_error',
    };
    const statuses: Record<GatewayErrorCode, number> = { ...SHARED_ERRORS, ...GATEWAY_ERRORS };
    for (const code of Object.keys(statuses) as GatewayErrorCode[]) {
      assert.equal(toAnthropicErrorType(code, statuses[code]), expected[code], code);
    }
  });

  it('builds the body with the request id when there is one', () => {
    assert.deepEqual(
      toAnthropicErrorBody({ error: { code: 'rate_limited', message: 'slow down' } }, 429, 'req-1'),
      {
        type: 'error',
        error: { type: 'rate_limit_error', message: 'slow down' },
        request_id: 'req-1',
      },
    );
  });
});
