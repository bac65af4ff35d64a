import type { ErrorCode, ErrorEnvelope } from '../../../platform/errors.ts';

/**
 * The gateway's errors in Anthropic's shape (API reference, "Errors"):
 * `{type: 'error', error: {type, message}, request_id}`, sent with the same HTTP status as the
 * native route, so that the official SDKs raise their own typed errors (`BadRequestError`,
 * `AuthenticationError`, `RateLimitError`, `InternalServerError`, …). Anthropic's error types
 * follow the status; codes with no type of their own are `invalid_request_error` (4xx, as
 * Anthropic documents) or `api_error` (5xx).
 */
export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: AnthropicErrorType; message: string };
  request_id?: string;
}

const TYPE_BY_CODE: Partial<Record<ErrorCode, AnthropicErrorType>> = {
  unauthorized: 'authentication_error',
  forbidden: 'permission_error',
  model_not_allowed: 'permission_error',
  not_found: 'not_found_error',
  payload_too_large: 'request_too_large',
  rate_limited: 'rate_limit_error',
  provider_unavailable: 'overloaded_error',
  service_unavailable: 'overloaded_error',
  shutting_down: 'overloaded_error',
  upstream_timeout: 'timeout_error',
};

export function toAnthropicErrorType(code: ErrorCode, status: number): AnthropicErrorType {
  return TYPE_BY_CODE[code] ?? (status < 500 ? 'invalid_request_error' : 'api_error');
}

/** The body for an error the gateway answers with; `status` is the one its code owns. */
export function toAnthropicErrorBody(
  envelope: ErrorEnvelope,
  status: number,
  requestId?: string,
): AnthropicErrorBody {
  const body: AnthropicErrorBody = {
    type: 'error',
    error: { type: toAnthropicErrorType(envelope.error.code, status), message: envelope.error.message },
  };
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}
