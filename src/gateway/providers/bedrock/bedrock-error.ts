import type { ProviderSlot } from '../../../config/config-types.ts';
import { readOverflowMessage } from '../../domain/agent-fault.ts';
import { parseRetryAfter } from '../http/retry-after.ts';
import { safeJson } from '../http/upstream-http.ts';
import { asString, isRecord } from '../json-guards.ts';
import { ProviderError } from '../provider-error.ts';
import { redactSecrets } from '../upstream-message.ts';

type Headers = Record<string, string | string[] | undefined>;

/**
 * Bedrock Runtime's error types (the `x-amzn-errortype` header, or an exception frame's
 * `:exception-type`) and whether a wait can fix each (CONTRACT 6.4): throttling, an unready or
 * busy model, a server fault retry; a validation error is a 400 and access denied a 403, never
 * retried. The status is the type's, so a frame inside a 200 stream maps like a response.
 */
const TYPES: Readonly<Record<string, { status: number; retryable: boolean }>> = {
  throttlingexception: { status: 429, retryable: true },
  servicequotaexceededexception: { status: 429, retryable: false },
  modelnotreadyexception: { status: 429, retryable: true },
  serviceunavailableexception: { status: 503, retryable: true },
  internalserverexception: { status: 500, retryable: true },
  modeltimeoutexception: { status: 408, retryable: true },
  modelstreamerrorexception: { status: 424, retryable: false },
  modelerrorexception: { status: 424, retryable: false },
  validationexception: { status: 400, retryable: false },
  accessdeniedexception: { status: 403, retryable: false },
  unrecognizedclientexception: { status: 403, retryable: false },
  invalidsignatureexception: { status: 403, retryable: false },
  expiredtokenexception: { status: 403, retryable: false },
  resourcenotfoundexception: { status: 404, retryable: false },
};

/** `ValidationException:http://internal.amazon.com/…` → `validationexception`. */
function typeOf(raw: string | undefined): string | undefined {
  const name = raw?.split(':')[0]?.trim().toLowerCase();
  return name === undefined || name === '' || !/^[a-z]{1,64}$/.test(name) ? undefined : name;
}

/**
 * The message of a 400's or 404's body, passed on redacted (contract 5.2), none for the others;
 * and a 400 that says the prompt is past the window (a ValidationException) as that overflow
 * (CONTRACT 6.1), with the figures its message gives.
 */
function messageOf(status: number, text: string): Pick<ProviderErrorInit, 'upstreamMessage' | 'overflow'> {
  if (status !== 400 && status !== 404) return {};
  const body = safeJson(text);
  const message = isRecord(body) ? (asString(body['message']) ?? asString(body['Message'])) : undefined;
  if (message === undefined || message.trim() === '') return {};
  const upstreamMessage = redactSecrets(message);
  const overflow = status === 400 ? readOverflowMessage(upstreamMessage) : undefined;
  return overflow === undefined ? { upstreamMessage } : { upstreamMessage, overflow };
}

type ProviderErrorInit = ConstructorParameters<typeof ProviderError>[0];

export function bedrockHttpError(
  slot: ProviderSlot,
  status: number,
  headers: Headers,
  text: string,
): ProviderError {
  const header = headers['x-amzn-errortype'];
  const type = typeOf(Array.isArray(header) ? header[0] : header);
  const known = type === undefined ? undefined : TYPES[type];
  const retryAfterMs = parseRetryAfter(headers);
  return new ProviderError({
    slot,
    failure: 'http',
    status,
    ...(known === undefined ? {} : { retryable: known.retryable }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    detail: type ?? 'Bedrock error',
    ...messageOf(status, text),
  });
}

/** An exception frame of an event stream (`:exception-type` and its JSON payload). */
export function bedrockStreamError(
  slot: ProviderSlot,
  exceptionType: string | undefined,
  data: string,
): ProviderError {
  const type = typeOf(exceptionType);
  const known = (type === undefined ? undefined : TYPES[type]) ?? { status: 500, retryable: true };
  return new ProviderError({
    slot,
    failure: 'http',
    status: known.status,
    retryable: known.retryable,
    detail: `stream ${type ?? 'exception'}`,
    ...messageOf(known.status, data),
  });
}
