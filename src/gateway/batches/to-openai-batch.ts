import type { BatchFileRecord, BatchRecord, BatchResultRow, ItemState } from '../../storage/batch-store.ts';

/*
 * Files, batches and result lines in OpenAI's shapes (API reference: "Files", "Batch", "The
 * request output object"). Times are Unix seconds, as OpenAI's are.
 */

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

export function toOpenAIFile(file: BatchFileRecord) {
  return {
    id: file.id,
    object: 'file' as const,
    bytes: file.bytes,
    created_at: seconds(file.createdAt),
    expires_at: seconds(file.expiresAt),
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed' as const,
    status_details: null,
  };
}

/** OpenAI's status: a batch closing (its result files being made) is `finalizing` there; here that is one transaction. */
export function toOpenAIBatch(batch: BatchRecord) {
  const counts = batch.counts;
  return {
    id: batch.id,
    object: 'batch' as const,
    endpoint: batch.endpoint,
    errors:
      batch.errors === null ? null : { object: 'list' as const, data: JSON.parse(batch.errors) as unknown[] },
    input_file_id: batch.inputFileId,
    completion_window: batch.completionWindow,
    status: batch.status,
    output_file_id: batch.outputFileId,
    error_file_id: batch.errorFileId,
    created_at: seconds(batch.createdAt),
    in_progress_at: seconds(batch.inProgressAt),
    expires_at: seconds(batch.expiresAt),
    finalizing_at: seconds(batch.finalizingAt),
    completed_at: seconds(batch.completedAt),
    failed_at: seconds(batch.failedAt),
    expired_at: seconds(batch.expiredAt),
    cancelling_at: seconds(batch.cancellingAt),
    cancelled_at: seconds(batch.cancelledAt),
    request_counts: {
      total: batch.total,
      completed: counts.succeeded,
      failed: counts.errored + counts.expired + counts.canceled,
    },
    metadata: batch.metadata,
  };
}

/** Which result file a request's line goes to once its batch closes (`unrun`: what pending requests become). */
export function resultFileOf(state: ItemState): 'output' | 'error' {
  return state === 'succeeded' ? 'output' : 'error';
}

const UNRUN_ERRORS: Partial<Record<ItemState, { code: string; message: string }>> = {
  canceled: { code: 'batch_cancelled', message: 'The batch was cancelled before this request ran.' },
  expired: {
    code: 'batch_expired',
    message: 'This request could not be executed before the completion window expired.',
  },
};

/**
 * One line of the output or error file: a request that ran has its `response` (status, request
 * id, the body its endpoint answered, an error envelope included); one that never ran has an
 * `error` saying why. `unrun` is the state a request still pending takes as the batch closes.
 */
export function toOpenAIResultLine(row: BatchResultRow, unrun: ItemState): string {
  const state = row.state === 'pending' || row.state === 'running' ? unrun : row.state;
  const id = `batch_req_${row.ledgerId}`;
  if (row.response === null || state === 'canceled' || state === 'expired') {
    const error = UNRUN_ERRORS[state] ?? UNRUN_ERRORS.canceled;
    return `${JSON.stringify({ id, custom_id: row.customId, response: null, error })}\n`;
  }
  const response = { status_code: row.statusCode, request_id: row.requestId, body: JSON.parse(row.response) };
  return `${JSON.stringify({ id, custom_id: row.customId, response, error: null })}\n`;
}

/** The state an unfinished request ends in when its batch closes with `status`. */
export function unrunStateOf(status: 'completed' | 'cancelled' | 'expired'): ItemState {
  return status === 'expired' ? 'expired' : 'canceled';
}
