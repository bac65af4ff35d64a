import type { ProviderSlot } from '../../../config/config-types.ts';
import { parseRetryAfter } from '../http/retry-after.ts';
import { safeJson } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import { ProviderError } from '../provider-error.ts';
import { upstreamRejectionOf } from '../upstream-message.ts';

type Headers = Record<string, string | string[] | undefined>;

/**
 * Anthropic's error types and the HTTP status each is sent with. An `error` event inside a 200
 * stream carries only the type, so its status is taken from here (overloaded_error is 529).
 */
const STATUS_OF_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * `error.details.error_code` values of a 429 that no wait will fix: the organisation hit a spend
 * limit, and requests fail until someone raises it or the month turns.
 */
const SPEND_LIMIT_CODES = new Set([
  'enforced_spend_limit_reached',
  'contract_spend_limit_reached',
  'linked_organization_spend_limit_reached',
]);

/** Only identifiers are taken from an error body: never its human-readable message. */
const IDENTIFIER = /^[a-z][a-z0-9_]{0,63}$/;

export interface AnthropicErrorFacts {
  type: string | undefined;
  code: string | undefined;
}

/** Reads `{type: 'error', error: {type, details?: {error_code}}}`, keeping identifiers only. */
export function readErrorFacts(body: unknown): AnthropicErrorFacts {
  const error = isRecord(body) && isRecord(body['error']) ? body['error'] : undefined;
  const details = error !== undefined && isRecord(error['details']) ? error['details'] : undefined;
  return { type: identifier(error?.['type']), code: identifier(details?.['error_code']) };
}

/**
 * A non-2xx answer of the Messages API as a ProviderError. Retryability follows the status
 * (429, 5xx and 529 retry; 400, 401, 403 do not) except where Anthropic says otherwise: a
 * spend-limit 429 and a response with `x-should-retry: false` are final. `x-should-retry: true`
 * is not followed, so a rejected request or key is never retried. The detail is built from the
 * error's type and code only, so no upstream text reaches logs or clients.
 */
export function mapAnthropicHttpError(
  slot: ProviderSlot,
  status: number,
  headers: Headers,
  bodyText: string,
): ProviderError {
  const body = safeJson(bodyText);
  const facts = readErrorFacts(body);
  const init: ConstructorParameters<typeof ProviderError>[0] = {
    slot,
    failure: 'http',
    status,
    detail: describe(facts),
    ...upstreamRejectionOf(status, body),
  };
  const retryAfterMs = parseRetryAfter(headers);
  if (retryAfterMs !== undefined) init.retryAfterMs = retryAfterMs;
  if (isFinal(facts, headers)) init.retryable = false;
  return new ProviderError(init);
}

/**
 * An `error` event in the middle of a stream (`{type: 'error', error: {type: 'overloaded_error'}}`),
 * given the status its type would have had as an HTTP answer, so it is retried the same way.
 */
export function mapAnthropicStreamError(slot: ProviderSlot, data: unknown): ProviderError {
  const facts = readErrorFacts(data);
  const status = (facts.type === undefined ? undefined : STATUS_OF_TYPE[facts.type]) ?? 500;
  const init: ConstructorParameters<typeof ProviderError>[0] = {
    slot,
    failure: 'http',
    status,
    detail: `stream ${describe(facts)}`,
  };
  if (isFinal(facts, {})) init.retryable = false;
  return new ProviderError(init);
}

function isFinal(facts: AnthropicErrorFacts, headers: Headers): boolean {
  if (facts.code !== undefined && SPEND_LIMIT_CODES.has(facts.code)) return true;
  const header = headers['x-should-retry'];
  return (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase() === 'false';
}

function describe(facts: AnthropicErrorFacts): string {
  if (facts.type === undefined) return 'unrecognised error body';
  return facts.code === undefined ? facts.type : `${facts.type} (${facts.code})`;
}

function identifier(value: unknown): string | undefined {
  return typeof value === 'string' && IDENTIFIER.test(value) ? value : undefined;
}
