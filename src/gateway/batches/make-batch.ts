import { ApiError } from '../../platform/errors.ts';
import { newTimeOrderedId } from '../../platform/ids.ts';
import type { BatchFlavor, BatchRecord, NewBatchItem } from '../../storage/batch-store.ts';
import type { BatchDeps } from './batch-deps.ts';
import { BATCH_ENDPOINTS, type BatchLine, BatchLineReader, lineError } from './batch-lines.ts';

/** Chunks read per round, and items written per transaction, while a batch is made. */
const CHUNKS_PER_READ = 8;
const ITEMS_PER_WRITE = 1000;

/** The ledger row id of a request to `endpoint`, as its live twin's id would start. */
export function newLedgerId(endpoint: string): string {
  if (endpoint === '/v1/embeddings') return newTimeOrderedId('emb');
  if (endpoint === '/v1/responses') return newTimeOrderedId('resp');
  return newTimeOrderedId('chat');
}

export interface OpenAIBatchInput {
  input_file_id: string;
  endpoint: string;
  completion_window: string;
  metadata?: Record<string, string> | null | undefined;
}

const invalid = (path: string, message: string) =>
  new ApiError('invalid_request', message, { details: [{ path, message }] });

/**
 * POST /v1/batches: the file read again, line by line, each line's `url` the batch's
 * `endpoint` (a different one is refused, naming its line) and its model allowed; its requests
 * stored as items, then the batch starts. Nothing is visible of a batch refused here.
 */
export async function makeOpenAIBatch(
  app: string,
  input: OpenAIBatchInput,
  deps: BatchDeps,
): Promise<BatchRecord> {
  if (!(BATCH_ENDPOINTS as readonly string[]).includes(input.endpoint))
    throw invalid('/endpoint', `must be one of ${BATCH_ENDPOINTS.join(', ')}`);
  if (input.completion_window !== '24h') throw invalid('/completion_window', "must be '24h'");
  const now = deps.clock.now();
  const file = await deps.store.findFile(app, input.input_file_id, now);
  if (file === undefined || file.purpose !== 'batch')
    throw new ApiError('not_found', `no file '${input.input_file_id.slice(0, 100)}' of purpose batch`);
  const id = newTimeOrderedId('batch');
  let items: NewBatchItem[] = [];
  const models = new Set<string | undefined>();
  const reader = new BatchLineReader(
    {
      app,
      maxLines: deps.settings.maxRequestsPerFile,
      modelAllowed: deps.modelAllowed,
      pointer: '/input_file_id',
    },
    (line: BatchLine) => {
      if (line.url !== input.endpoint)
        throw lineError(
          '/input_file_id',
          line.line,
          `url '${line.url}' is not the batch's endpoint '${input.endpoint}'`,
        );
      models.add(line.model);
      items.push({
        line: line.line,
        customId: line.customId,
        ledgerId: newLedgerId(input.endpoint),
        body: line.body,
      });
    },
  );
  let total = 0;
  try {
    for (let seq = 0; ; seq += CHUNKS_PER_READ) {
      const chunks = await deps.store.readChunks(file.id, seq, CHUNKS_PER_READ);
      for (const chunk of chunks) reader.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      if (items.length >= ITEMS_PER_WRITE || chunks.length < CHUNKS_PER_READ) {
        if (chunks.length < CHUNKS_PER_READ) reader.end();
        total += items.length;
        if (items.length > 0) await deps.store.addItems(id, items);
        items = [];
      }
      if (chunks.length < CHUNKS_PER_READ) break;
    }
  } catch (error) {
    await deps.store.failBatch(id, '[]', now).catch(() => {});
    throw error;
  }
  return startBatch(
    app,
    { id, flavor: 'openai', endpoint: input.endpoint, inputFileId: file.id, total, models },
    input,
    deps,
  );
}

/** POST /v1/messages/batches: the requests, checked (to-anthropic-batch.ts), as a batch to /v1/messages. */
export async function makeMessageBatch(
  app: string,
  items: readonly NewBatchItem[],
  deps: BatchDeps,
): Promise<BatchRecord> {
  const id = newTimeOrderedId('msgbatch');
  for (let at = 0; at < items.length; at += ITEMS_PER_WRITE)
    await deps.store.addItems(id, items.slice(at, at + ITEMS_PER_WRITE));
  const made = {
    id,
    flavor: 'anthropic' as const,
    endpoint: '/v1/messages',
    inputFileId: null,
    total: items.length,
    models: new Set(items.map((item) => modelOf(item.body))),
  };
  return startBatch(app, made, { completion_window: '24h' }, deps);
}

async function startBatch(
  app: string,
  made: {
    id: string;
    flavor: BatchFlavor;
    endpoint: string;
    inputFileId: string | null;
    total: number;
    /** Every request's `model`: where they all pin one vendor slot, that vendor runs the batch. */
    models: ReadonlySet<string | undefined>;
  },
  input: Pick<OpenAIBatchInput, 'completion_window' | 'metadata'>,
  deps: BatchDeps,
): Promise<BatchRecord> {
  const now = deps.clock.now();
  const { models, ...fields } = made;
  await deps.store.createBatch({
    ...fields,
    app,
    completionWindow: input.completion_window,
    metadata: input.metadata ?? null,
    createdAt: now,
    expiresAt: now + 86_400_000,
  });
  const slot = deps.vendor?.slotFor(app, made.flavor, made.endpoint, models) ?? null;
  if (slot !== null) await deps.store.upstream.route(made.id, slot);
  await deps.store.startBatch(made.id, now);
  const batch = await deps.store.getBatch(app, made.id);
  if (batch === undefined) throw new Error(`batch ${made.id} vanished as it was made`);
  return batch;
}

function modelOf(body: string): string | undefined {
  const model = (JSON.parse(body) as { model?: unknown }).model;
  return typeof model === 'string' ? model : undefined;
}
