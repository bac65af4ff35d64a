import { ApiError } from '../../platform/errors.ts';
import type { BatchRecord, BatchResultRow, NewBatchItem } from '../../storage/batch-store.ts';
import type { ModelCheck } from './batch-lines.ts';

/*
 * Anthropic's Message Batches (API reference, "Message Batches"): the batch object, a result line
 * of `GET …/results`, and the checks on `POST /v1/messages/batches`'s `requests`.
 */

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** `processing_status`: OpenAI-side `cancelling` is Anthropic's `canceling`; every closed status is `ended`. */
export function toAnthropicBatch(batch: BatchRecord, publicUrl: string) {
  const counts = batch.counts;
  const open = batch.status === 'in_progress' || batch.status === 'validating';
  const ended = !open && batch.status !== 'cancelling';
  return {
    id: batch.id,
    type: 'message_batch' as const,
    processing_status: open ? 'in_progress' : batch.status === 'cancelling' ? 'canceling' : 'ended',
    request_counts: {
      processing: counts.pending + counts.running,
      succeeded: counts.succeeded,
      errored: counts.errored,
      canceled: counts.canceled,
      expired: counts.expired,
    },
    ended_at: ended ? iso(batch.completedAt ?? batch.cancelledAt ?? batch.expiredAt ?? batch.failedAt) : null,
    created_at: iso(batch.createdAt),
    expires_at: iso(batch.expiresAt),
    archived_at: null,
    cancel_initiated_at: iso(batch.cancellingAt),
    results_url: ended ? `${publicUrl}/v1/messages/batches/${batch.id}/results` : null,
  };
}

/** One line of `GET …/results`: the Message, the error body the door answered, or why it never ran. */
export function toAnthropicResultLine(row: BatchResultRow): string {
  let result: unknown;
  if (row.state === 'succeeded' && row.response !== null)
    result = { type: 'succeeded', message: JSON.parse(row.response) };
  else if (row.state === 'errored' && row.response !== null)
    result = { type: 'errored', error: JSON.parse(row.response) };
  else result = { type: row.state === 'expired' ? 'expired' : 'canceled' };
  return `${JSON.stringify({ custom_id: row.customId, result })}\n`;
}

/** Anthropic's rule for a request's `custom_id`. */
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

function requestError(index: number, field: string, message: string): ApiError {
  const path = `/requests/${index}${field}`;
  return new ApiError('invalid_request', `requests.${index}${field.replaceAll('/', '.')}: ${message}`, {
    details: [{ path, message }],
  });
}

/**
 * The `requests` of a Message Batch as items, each checked: a unique `custom_id` of Anthropic's
 * form, `params` an object that does not ask to stream, with a model the app may use. The first
 * fault throws, naming the request's index.
 */
export function readMessageBatchRequests(
  requests: readonly unknown[],
  app: string,
  maxRequests: number,
  modelAllowed: ModelCheck,
  newLedgerId: () => string,
): NewBatchItem[] {
  if (requests.length === 0) throw requestError(0, '', 'at least one request is required');
  if (requests.length > maxRequests)
    throw requestError(maxRequests, '', `at most ${maxRequests} requests in one batch`);
  const seen = new Map<string, number>();
  return requests.map((request, index) => {
    if (typeof request !== 'object' || request === null || Array.isArray(request))
      throw requestError(index, '', 'must be an object');
    const { custom_id: customId, params } = request as Record<string, unknown>;
    if (typeof customId !== 'string' || !CUSTOM_ID.test(customId))
      throw requestError(index, '/custom_id', 'must be 1 to 64 letters, digits, _ or -');
    const first = seen.get(customId);
    if (first !== undefined)
      throw requestError(index, '/custom_id', `'${customId}' duplicates requests.${first}`);
    seen.set(customId, index);
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      throw requestError(index, '/params', 'must be an object');
    const fields = params as Record<string, unknown>;
    if (fields.stream === true) throw requestError(index, '/params/stream', 'a batch request cannot stream');
    if (typeof fields.model === 'string' && !modelAllowed(app, fields.model))
      throw requestError(index, '/params/model', `model '${fields.model}' is not allowed for this app`);
    return { line: index + 1, customId, ledgerId: newLedgerId(), body: JSON.stringify(params) };
  });
}
