import type { ProviderSlot } from '../../../config/config-types.ts';
import { safeJson } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import { errorFromResponse } from '../openai/openai-error.ts';
import { ProviderError } from '../provider-error.ts';
import { redactSecrets } from '../upstream-message.ts';

type Headers = Record<string, string | string[] | undefined>;

/**
 * Azure OpenAI's errors are OpenAI's, but for its content filter (CONTRACT 6.4, 6.9): a 400 with
 * `code: content_filter` whose `innererror.content_filter_result` (or `content_filter_results`)
 * says which categories were filtered. It is never retried, and its message names the filter, so
 * a vendor door answers 400 with it and the native API 502 `upstream_error` with it.
 */
export function azureError(slot: ProviderSlot, status: number, headers: Headers, text: string): Error {
  const body = safeJson(text);
  const error = isRecord(body) && isRecord(body['error']) ? body['error'] : undefined;
  if (error === undefined || error['code'] !== 'content_filter')
    return errorFromResponse(slot, status, headers, text);
  const inner = isRecord(error['innererror']) ? error['innererror'] : {};
  const results =
    inner['content_filter_result'] ?? inner['content_filter_results'] ?? error['content_filter_results'];
  const filtered = isRecord(results)
    ? Object.entries(results)
        .filter(
          ([, result]) => isRecord(result) && (result['filtered'] === true || result['detected'] === true),
        )
        .map(([name]) => name)
        .filter((name) => /^[a-z_]{1,40}$/.test(name))
    : [];
  const names = filtered.length === 0 ? 'content_filter' : `content_filter (${filtered.join(', ')})`;
  const message = typeof error['message'] === 'string' ? `: ${redactSecrets(error['message'])}` : '';
  return new ProviderError({
    slot,
    failure: 'http',
    status: 400,
    retryable: false,
    detail: names,
    upstreamMessage: `Azure OpenAI's ${names} refused the request${message}`,
  });
}
