import { Type } from 'typebox';
import { ApiError } from '../../platform/errors.ts';
import type { BatchFilePurpose } from '../../storage/batch-store.ts';
import { doorErrorHandler } from '../doors/door-error-handler.ts';
import { openAIDoorErrorBody } from '../doors/openai-error-body.ts';
import type { TypedInstance } from '../http/typed-instance.ts';
import { type BatchDeps, pageSize } from './batch-deps.ts';
import { fileContent } from './file-content.ts';
import { makeOpenAIBatch } from './make-batch.ts';
import { receiveUpload } from './receive-upload.ts';
import { toOpenAIBatch, toOpenAIFile } from './to-openai-batch.ts';

/** The longest page a list answers, as the vendor's. */
const LIST_MAX = 100;

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

/** OpenAI's metadata: at most 16 pairs, keys up to 64 characters, values up to 512. */
const Metadata = Type.Union([
  Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { maxProperties: 16 }),
  Type.Null(),
]);

const CreateBatchBody = Type.Object({
  input_file_id: Type.String({ minLength: 1, maxLength: 200 }),
  endpoint: Type.String({ minLength: 1, maxLength: 100 }),
  completion_window: Type.String({ minLength: 1, maxLength: 10 }),
  metadata: Type.Optional(Metadata),
});

const ListQuery = Type.Object({
  after: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  /** A query string's number: digits, read by pageSize. */
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
});

/** OpenAI's `GET /files` query: `limit` 1 to 10,000 (10,000 by default), `order` of `created_at`. */
const FileListQuery = Type.Object({
  after: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  purpose: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
});
const FILE_LIST_MAX = 10_000;
const FILE_PURPOSES: readonly string[] = ['batch', 'batch_output', 'batch_error'];

const notFound = (kind: string, id: string) => new ApiError('not_found', `no ${kind} '${id.slice(0, 200)}'`);

/**
 * OpenAI's Files and Batch APIs (CONTRACT 6.7) in a context of their own whose errors are
 * OpenAI's shape: `/v1/files` (multipart upload, list, read, content, delete) and `/v1/batches` (create,
 * read, list, cancel). Everything belongs to the app that made it; another app gets 404.
 */
export async function registerOpenAIBatchRoutes(v1: TypedInstance, deps: BatchDeps): Promise<void> {
  await v1.register(async (door: TypedInstance) => {
    door.setErrorHandler(doorErrorHandler(openAIDoorErrorBody));
    // The upload is read by receiveUpload as it arrives, with its own bound, not as a parsed body.
    door.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
    registerFiles(door, deps);
    registerBatches(door, deps);
  });
}

function registerFiles(door: TypedInstance, deps: BatchDeps): void {
  door.post('/v1/files', { schema: { hide: true } }, async (request) =>
    toOpenAIFile(await receiveUpload(request, deps)),
  );
  door.get('/v1/files', { schema: { hide: true, querystring: FileListQuery } }, async (request) => {
    const { after, order = 'desc', purpose } = request.query;
    const limit =
      request.query.limit === undefined
        ? FILE_LIST_MAX
        : Math.min(Math.max(Number(request.query.limit), 1), FILE_LIST_MAX);
    // A purpose the gateway never keeps lists nothing, as a filter does.
    if (purpose !== undefined && !FILE_PURPOSES.includes(purpose))
      return { object: 'list' as const, data: [], first_id: null, last_id: null, has_more: false };
    const page = { limit: limit + 1, order, after, purpose: purpose as BatchFilePurpose | undefined };
    const files = await deps.store.listFiles(request.appName, deps.clock.now(), page);
    const data = files.slice(0, limit).map(toOpenAIFile);
    return {
      object: 'list' as const,
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: files.length > limit,
    };
  });
  const findFile = async (app: string, id: string) => {
    const file = await deps.store.findFile(app, id, deps.clock.now());
    if (file === undefined) throw notFound('file', id);
    return file;
  };
  door.get('/v1/files/:id', { schema: { hide: true, params: IdParams } }, async (request) =>
    toOpenAIFile(await findFile(request.appName, request.params.id)),
  );
  door.get('/v1/files/:id/content', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const file = await findFile(request.appName, request.params.id);
    reply.type('application/octet-stream');
    return reply.send(fileContent(deps.store, file));
  });
  door.delete('/v1/files/:id', { schema: { hide: true, params: IdParams } }, async (request) => {
    const file = await findFile(request.appName, request.params.id);
    await deps.store.deleteFile(request.appName, file.id);
    return { id: file.id, object: 'file' as const, deleted: true };
  });
}

function registerBatches(door: TypedInstance, deps: BatchDeps): void {
  door.post('/v1/batches', { schema: { hide: true, body: CreateBatchBody } }, async (request) =>
    toOpenAIBatch(await makeOpenAIBatch(request.appName, request.body, deps)),
  );
  door.get('/v1/batches/:id', { schema: { hide: true, params: IdParams } }, async (request) => {
    const batch = await deps.store.getBatch(request.appName, request.params.id);
    if (batch === undefined || batch.flavor !== 'openai') throw notFound('batch', request.params.id);
    return toOpenAIBatch(batch);
  });
  door.get('/v1/batches', { schema: { hide: true, querystring: ListQuery } }, async (request) => {
    const limit = pageSize(request.query.limit, LIST_MAX);
    // One more than asked says whether there is a next page.
    const batches = await deps.store.listBatches(request.appName, 'openai', limit + 1, request.query.after);
    const page = batches.slice(0, limit).map(toOpenAIBatch);
    return {
      object: 'list' as const,
      data: page,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
      has_more: batches.length > limit,
    };
  });
  door.post('/v1/batches/:id/cancel', { schema: { hide: true, params: IdParams } }, async (request) => {
    const found = await deps.store.getBatch(request.appName, request.params.id);
    if (found === undefined || found.flavor !== 'openai') throw notFound('batch', request.params.id);
    const batch = await deps.store.cancelBatch(request.appName, found.id, deps.clock.now());
    return toOpenAIBatch(batch ?? found);
  });
}
