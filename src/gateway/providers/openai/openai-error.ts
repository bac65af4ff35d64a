import type { ProviderSlot } from '../../../config/config-types.ts';
import { parseRetryAfter } from '../http/retry-after.ts';
import { safeJson } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import { ProviderError } from '../provider-error.ts';
import { upstreamRejectionOf } from '../upstream-message.ts';

type Headers = Record<string, string | string[] | undefined>;

/**
 * A 429 for money, not speed: waiting does not help, so it is not retried. OpenAI types all of
 * them `insufficient_quota` and names the cause in `code`; the codes are listed too in case a
 * proxy keeps only one of the two fields.
 */
const QUOTA_CODES = new Set([
  'insufficient_quota',
  'credit_balance_exhausted',
  'organization_spend_limit_exceeded',
  'project_spend_limit_exceeded',
  'organization_usage_limit_exceeded',
]);

/** Error-type names safe to repeat: identifiers only, so no message text, key or URL slips through. */
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

interface ErrorFields {
  type: string | undefined;
  code: string | undefined;
  /** vLLM and OpenRouter put the HTTP status in `code`. */
  numericCode: number | undefined;
}

/**
 * The `error` object of an OpenAI-style body: `{error: {message, type, param, code}}` (OpenAI,
 * Ollama, Groq, newer vLLM) or a top-level `{object: "error", type, code}` (older vLLM).
 * Only `type` and `code` are read; `message` is deliberately never looked at, because it can
 * quote the caller's key ("Incorrect API key provided: sk-…") or the prompt.
 */
function readErrorFields(value: unknown): ErrorFields {
  let error: Record<string, unknown> | undefined;
  if (isRecord(value) && isRecord(value['error'])) error = value['error'];
  else if (isRecord(value) && value['object'] === 'error') error = value;
  const identifier = (field: unknown) =>
    typeof field === 'string' && IDENTIFIER.test(field) ? field : undefined;
  const code = error?.['code'];
  return {
    type: identifier(error?.['type']),
    code: identifier(code),
    numericCode: typeof code === 'number' && Number.isInteger(code) ? code : undefined,
  };
}

function isQuota(fields: ErrorFields): boolean {
  return (
    (fields.type !== undefined && QUOTA_CODES.has(fields.type)) ||
    (fields.code !== undefined && QUOTA_CODES.has(fields.code))
  );
}

/** `code`, then `type` when it says something more: "invalid_api_key", "rate_limit_exceeded (requests)". */
function describe(status: number | undefined, fields: ErrorFields): string | undefined {
  const names = [fields.code, fields.type].filter(
    (name, i, all) => name !== undefined && all.indexOf(name) === i,
  );
  const what = names.length === 0 ? undefined : names.length === 1 ? names[0] : `${names[0]} (${names[1]})`;
  if (status === undefined) return what;
  return what === undefined ? `HTTP ${status}` : `HTTP ${status} ${what}`;
}

/**
 * A non-2xx answer to a ProviderError. Whether it is retried follows the status (ProviderError
 * decides), except: a quota 429 never is, and `x-should-retry: false`, which OpenAI sends to tell
 * its own SDKs not to retry, is honoured. (Its `true` is not: the gateway never retries a 4xx
 * that the contract says is the caller's or the key's fault.)
 */
export function errorFromResponse(
  slot: ProviderSlot,
  status: number,
  headers: Headers,
  bodyText: string,
): ProviderError {
  const body = safeJson(bodyText);
  const fields = readErrorFields(body);
  const shouldRetry = headers['x-should-retry'];
  let retryable: boolean | undefined;
  if (status === 429 && isQuota(fields)) retryable = false;
  else if (shouldRetry === 'false') retryable = false;
  const retryAfterMs = parseRetryAfter(headers);
  const detail = describe(status, fields);
  return new ProviderError({
    slot,
    failure: 'http',
    status,
    ...(retryable === undefined ? {} : { retryable }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(detail === undefined ? {} : { detail }),
    ...upstreamRejectionOf(status, body, fields.code === 'context_length_exceeded'),
  });
}

/**
 * An `error` object sent inside a 2xx stream (`data: {"error": {...}}`), as OpenAI does when
 * generation fails after the headers went out and OpenRouter or vLLM do for upstream failures.
 * A numeric HTTP status in `code` is used as the status; otherwise it is a server-side failure
 * unless it names a quota or a rejected request.
 */
export function errorFromStreamChunk(slot: ProviderSlot, chunk: unknown): ProviderError {
  const fields = readErrorFields(chunk);
  const numeric = fields.numericCode;
  const status = numeric !== undefined && numeric >= 400 && numeric <= 599 ? numeric : undefined;
  let retryable: boolean | undefined;
  if (isQuota(fields)) retryable = false;
  else if (status === undefined) retryable = fields.type !== 'invalid_request_error';
  const detail = describe(undefined, fields);
  return new ProviderError({
    slot,
    failure: 'http',
    ...(status === undefined ? {} : { status }),
    ...(retryable === undefined ? {} : { retryable }),
    detail: `error inside the stream${detail === undefined ? '' : `: ${detail}`}`,
  });
}

/** A 2xx body the adapter cannot read. The detail names what was wrong, never the body. */
export function invalidResponse(slot: ProviderSlot, detail: string, status?: number): ProviderError {
  return new ProviderError({
    slot,
    failure: 'invalid_response',
    detail,
    ...(status === undefined ? {} : { status }),
  });
}
