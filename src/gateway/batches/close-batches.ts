import type { BatchFileRecord, BatchRecord } from '../../storage/batch-store.ts';
import { type BatchDeps, retentionMs } from './batch-deps.ts';
import { readResultRows } from './file-content.ts';
import { resultFileOf, toOpenAIResultLine, unrunStateOf } from './to-openai-batch.ts';

/** Batches closed per round. */
const CLOSE_PER_ROUND = 10;

/**
 * Closes the batches with nothing left to run, or past their 24 hours: `cancelled` after a
 * cancel, `expired` past the window (what never ran ends `expired`), else `completed`. An
 * OpenAI batch gets its output and error files (made from its items when read; their sizes are
 * counted here). Any instance may do it; the store lets one close each batch.
 */
export async function closeReadyBatches(deps: BatchDeps): Promise<number> {
  const now = deps.clock.now();
  let closed = 0;
  for (const batch of await deps.store.batchesToClose(now, CLOSE_PER_ROUND)) {
    const status =
      batch.status === 'cancelling' ? 'cancelled' : now >= batch.expiresAt ? 'expired' : 'completed';
    const files = batch.flavor === 'openai' ? await resultFiles(deps, batch, status, now) : NO_FILES;
    if (await deps.store.closeBatch(batch.id, { status, ...files }, now)) closed++;
  }
  return closed;
}

const NO_FILES = { output: null, error: null };

async function resultFiles(
  deps: BatchDeps,
  batch: BatchRecord,
  status: 'completed' | 'cancelled' | 'expired',
  now: number,
): Promise<{ output: BatchFileRecord | null; error: BatchFileRecord | null }> {
  const unrun = unrunStateOf(status);
  const sizes = { output: { bytes: 0, lines: 0 }, error: { bytes: 0, lines: 0 } };
  for await (const row of readResultRows(deps.store, batch.id)) {
    const state = row.state === 'pending' || row.state === 'running' ? unrun : row.state;
    const size = sizes[resultFileOf(state)];
    size.bytes += Buffer.byteLength(toOpenAIResultLine(row, unrun));
    size.lines++;
  }
  const file = (kind: 'output' | 'error'): BatchFileRecord | null =>
    sizes[kind].lines === 0
      ? null
      : {
          // Named by the batch, so two instances closing it at once would make the same file.
          id: batch.id.replace(/^batch_/, `file-${kind}_`),
          app: batch.app,
          purpose: kind === 'output' ? 'batch_output' : 'batch_error',
          filename: `${batch.id}_${kind}.jsonl`,
          bytes: sizes[kind].bytes,
          lines: sizes[kind].lines,
          status: 'processed',
          batchId: batch.id,
          createdAt: now,
          expiresAt: batch.createdAt + retentionMs(deps.settings),
        };
  return { output: file('output'), error: file('error') };
}
