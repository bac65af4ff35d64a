import { Readable } from 'node:stream';
import type { BatchFileRecord, BatchResultRow, BatchStore, ItemState } from '../../storage/batch-store.ts';
import { resultFileOf, toOpenAIResultLine } from './to-openai-batch.ts';

/** Chunks or result rows read per round while a file streams. */
const CHUNKS_PER_READ = 4;
const ROWS_PER_READ = 500;

/** A batch's result rows in line order, read a page at a time. */
export async function* readResultRows(store: BatchStore, batchId: string): AsyncGenerator<BatchResultRow> {
  for (let after = 0; ; ) {
    const rows = await store.readResults(batchId, after, ROWS_PER_READ);
    yield* rows;
    const last = rows.at(-1);
    if (last === undefined || rows.length < ROWS_PER_READ) return;
    after = last.line;
  }
}

/** The lines of a batch's output (`batch_output`) or error (`batch_error`) file, as OpenAI writes them. */
export async function* resultFileLines(
  store: BatchStore,
  batchId: string,
  kind: 'output' | 'error',
  unrun: ItemState,
): AsyncGenerator<string> {
  for await (const row of readResultRows(store, batchId)) {
    const state = row.state === 'pending' || row.state === 'running' ? unrun : row.state;
    if (resultFileOf(state) === kind) yield toOpenAIResultLine(row, unrun);
  }
}

/**
 * GET /v1/files/{id}/content as a stream: an uploaded file's chunks as stored, a result file's
 * lines made from its batch's items. Neither is held whole in memory.
 */
export function fileContent(store: BatchStore, file: BatchFileRecord): Readable {
  if (file.batchId !== null) {
    const kind = file.purpose === 'batch_output' ? 'output' : 'error';
    return Readable.from(resultFileLines(store, file.batchId, kind, 'canceled'));
  }
  return Readable.from(readChunks(store, file.id));
}

async function* readChunks(store: BatchStore, fileId: string): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq += CHUNKS_PER_READ) {
    const chunks = await store.readChunks(fileId, seq, CHUNKS_PER_READ);
    for (const chunk of chunks) yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (chunks.length < CHUNKS_PER_READ) return;
  }
}
