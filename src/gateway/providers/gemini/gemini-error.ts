import type { ProviderSlot } from '../../../config/config-types.ts';
import { parseRetryAfter } from '../http/retry-after.ts';
import { safeJson } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import { ProviderError } from '../provider-error.ts';
import { upstreamRejectionOf } from '../upstream-message.ts';

type Headers = Record<string, string | string[] | undefined>;

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';
const QUOTA_FAILURE = 'type.googleapis.com/google.rpc.QuotaFailure';
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

/** An upper-case enum token (google.rpc.Code name or ErrorInfo reason): safe to repeat in logs. */
const TOKEN = /^[A-Z][A-Z0-9_]{0,63}$/;

/** What the gateway takes from a google.rpc.Status error body; never its free-text message. */
export interface GeminiErrorFacts {
  /** e.g. RESOURCE_EXHAUSTED, INVALID_ARGUMENT, UNAVAILABLE. */
  status: string | undefined;
  /** ErrorInfo.reason, e.g. API_KEY_INVALID. */
  reason: string | undefined;
  /** RetryInfo.retryDelay in ms. */
  retryDelayMs: number | undefined;
  /** A QuotaFailure or ErrorInfo names a per-day quota: it resets in hours, so retrying is pointless. */
  dailyQuota: boolean;
}

/**
 * An HTTP error answer of the Gemini API to a ProviderError. The body is Google's
 * `{error: {code, message, status, details: [...]}}`; only enum fields and typed details are read,
 * so the detail never carries the upstream's message (which can echo request content) or a key.
 */
export function geminiHttpError(
  slot: ProviderSlot,
  status: number,
  headers: Headers,
  bodyText: string,
): ProviderError {
  return geminiErrorFrom(slot, status, headers, safeJson(bodyText));
}

/** The same mapping for an already-parsed body (also used for an error event inside a stream). */
export function geminiErrorFrom(
  slot: ProviderSlot,
  status: number,
  headers: Headers,
  body: unknown,
): ProviderError {
  const facts = readGeminiErrorFacts(body);
  const fromHeader = parseRetryAfter(headers);
  const waits = [fromHeader, facts.retryDelayMs].filter((ms): ms is number => ms !== undefined);
  const label = facts.reason ?? facts.status;
  const detail = [`HTTP ${status}`, label, facts.dailyQuota ? '(daily quota)' : undefined]
    .filter((piece) => piece !== undefined)
    .join(' ');
  return new ProviderError({
    slot,
    failure: 'http',
    status,
    // A per-day quota will not come back within any retry budget: fall over instead of waiting.
    ...(status === 429 && facts.dailyQuota ? { retryable: false } : {}),
    // Both say "not before"; the later of the two is the one that holds.
    ...(waits.length > 0 ? { retryAfterMs: Math.max(...waits) } : {}),
    detail,
    ...upstreamRejectionOf(status, body),
  });
}

export function readGeminiErrorFacts(body: unknown): GeminiErrorFacts {
  // Some front ends wrap the Status in a one-element array.
  const root = Array.isArray(body) ? body[0] : body;
  const error = isRecord(root) ? root['error'] : undefined;
  const facts: GeminiErrorFacts = {
    status: undefined,
    reason: undefined,
    retryDelayMs: undefined,
    dailyQuota: false,
  };
  if (!isRecord(error)) return facts;
  facts.status = token(error['status']);
  const details = Array.isArray(error['details']) ? error['details'] : [];
  for (const detail of details) {
    if (!isRecord(detail)) continue;
    const type = detail['@type'];
    if (type === ERROR_INFO) {
      facts.reason ??= token(detail['reason']);
      const metadata = detail['metadata'];
      if (isRecord(metadata) && isDaily(metadata['quota_limit'])) facts.dailyQuota = true;
    } else if (type === RETRY_INFO) {
      facts.retryDelayMs ??= parseDuration(detail['retryDelay']);
    } else if (type === QUOTA_FAILURE) {
      const violations = Array.isArray(detail['violations']) ? detail['violations'] : [];
      for (const violation of violations) {
        if (isRecord(violation) && isDaily(violation['quotaId'])) facts.dailyQuota = true;
      }
    }
  }
  return facts;
}

/**
 * A google.protobuf.Duration in its JSON form: seconds with up to nine fractional digits and an
 * `s` suffix ("12s", "0.5s", "45.837906927s"). Undefined when unreadable.
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{1,10})(?:\.(\d{1,9}))?s$/.exec(value.trim());
  if (match === null) return undefined;
  // Integer arithmetic: 1.1 * 1000 in floating point would round up to 1101.
  const nanos = Number((match[2] ?? '').padEnd(9, '0'));
  return Number(match[1]) * 1000 + Math.ceil(nanos / 1_000_000);
}

function isDaily(quotaId: unknown): boolean {
  return typeof quotaId === 'string' && /per[_-]?day|daily/i.test(quotaId);
}

function token(value: unknown): string | undefined {
  return typeof value === 'string' && TOKEN.test(value) ? value : undefined;
}
